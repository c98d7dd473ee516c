// The pieces of `npm start`'s logging: redaction of every line, the terminal's readable lines, the
// status block, and server.log rotated by size.
import { readdir, readFile, stat } from 'node:fs/promises';
import path from 'node:path';
import pino from 'pino';
import { describe, expect, it } from 'vitest';
import { redactLogLine } from '../src/logging/redact.ts';
import { openServerLog, terminalLevelFor } from '../src/logging/server-log.ts';
import { lanAddress, statusBlock } from '../src/logging/status-block.ts';
import { TerminalLines } from '../src/logging/terminal-lines.ts';
import { makeTempDir } from './helpers.ts';

const jwt = 'eyJhbGciOiJIUzI1NiIsInR5cCI6IkpXVCJ9.eyJyb2xlIjoiYW5vbiJ9.c2lnbmF0dXJl';

describe('redactLogLine', () => {
  it('redacts credential headers at any depth, single values and arrays', () => {
    const line = JSON.stringify({
      req: {
        headers: { authorization: 'Bearer opaque-token', apikey: 'opaque-key', cookie: 'sb=1', host: 'example.com' },
      },
      res: { headers: { 'set-cookie': ['a=1; HttpOnly', 'b="2"'], 'content-type': 'application/json' } },
      nested: { deeper: { Authorization: 'Basic dXNlcjpwYXNz', password: 'hunter2', refresh_token: 'r-1', token: 42 } },
    });
    const redacted = JSON.parse(redactLogLine(line));
    expect(redacted.req.headers).toEqual({
      authorization: '[redacted]',
      apikey: '[redacted]',
      cookie: '[redacted]',
      host: 'example.com',
    });
    expect(redacted.res.headers).toEqual({ 'set-cookie': '[redacted]', 'content-type': 'application/json' });
    expect(redacted.nested.deeper).toEqual({
      Authorization: '[redacted]',
      password: '[redacted]',
      refresh_token: '[redacted]',
      token: '[redacted]',
    });
  });

  it('redacts tokens in query strings and keeps the rest of the URL', () => {
    const line = JSON.stringify({
      req: {
        url: '/realtime/v1/websocket?apikey=abc&vsn=1.0.0&access_token=def#x',
        other: '/verify?type=signup&token=t0k&redirect_to=/home',
      },
    });
    expect(JSON.parse(redactLogLine(line)).req).toEqual({
      url: '/realtime/v1/websocket?apikey=[redacted]&vsn=1.0.0&access_token=[redacted]#x',
      other: '/verify?type=signup&token=[redacted]&redirect_to=/home',
    });
  });

  it('redacts anything shaped like a JWT, even inside a message', () => {
    const line = JSON.stringify({ msg: `token ${jwt} was refused`, err: { message: `bad jwt: ${jwt}` } });
    expect(redactLogLine(line)).not.toContain(jwt);
    expect(JSON.parse(redactLogLine(line)).msg).toBe('token [redacted] was refused');
  });

  it('leaves a line without secrets as it was', () => {
    const line = JSON.stringify({
      level: 30,
      msg: 'request completed',
      req: { url: '/api/health?tokenish=1&page=2' },
      responseTime: 1.5,
    });
    expect(redactLogLine(line)).toBe(line);
  });
});

describe('TerminalLines', () => {
  const at = new Date(2026, 10, 23, 9, 5, 7).getTime();

  it('joins a request pair into one line and drops the incoming half', () => {
    const lines = new TerminalLines();
    expect(
      lines.format(
        JSON.stringify({
          level: 30,
          time: at,
          name: 'gateway',
          reqId: 'req-1',
          req: { method: 'GET', url: '/api/health' },
          msg: 'incoming request',
        }),
      ),
    ).toBeUndefined();
    expect(
      lines.format(
        JSON.stringify({
          level: 30,
          time: at,
          name: 'gateway',
          reqId: 'req-1',
          res: { statusCode: 200 },
          responseTime: 2.6,
          msg: 'request completed',
        }),
      ),
    ).toBe('09:05:07 INFO  gateway   GET /api/health 200 3 ms');
  });

  it('keeps requests of two loggers apart when their ids repeat', () => {
    const lines = new TerminalLines();
    lines.format(
      JSON.stringify({
        level: 30,
        time: at,
        name: 'gateway',
        reqId: 'req-1',
        req: { method: 'POST', url: '/__auth/signup' },
        msg: 'incoming request',
      }),
    );
    lines.format(
      JSON.stringify({
        level: 30,
        time: at,
        name: 'localbase',
        reqId: 'req-1',
        req: { method: 'POST', url: '/auth/v1/signup' },
        msg: 'incoming request',
      }),
    );
    expect(
      lines.format(
        JSON.stringify({
          level: 30,
          time: at,
          name: 'localbase',
          reqId: 'req-1',
          res: { statusCode: 200 },
          msg: 'request completed',
        }),
      ),
    ).toBe('09:05:07 INFO  localbase POST /auth/v1/signup 200');
  });

  it('shows a warning with its error and the request it belongs to, on one line', () => {
    const lines = new TerminalLines();
    lines.format(
      JSON.stringify({
        level: 30,
        time: at,
        name: 'gateway',
        reqId: 'req-9',
        req: { method: 'GET', url: '/__backend/rest/v1/groups' },
        msg: 'incoming request',
      }),
    );
    const warning = {
      level: 40,
      time: at,
      name: 'gateway',
      reqId: 'req-9',
      err: {
        type: 'Error',
        message: 'connect ECONNREFUSED\n127.0.0.1:54321',
        code: 'ECONNREFUSED',
        stack: 'Error: ...\n    at x',
      },
      msg: 'backend request failed',
    };
    expect(lines.format(JSON.stringify(warning))).toBe(
      '09:05:07 WARN  gateway   backend request failed: connect ECONNREFUSED 127.0.0.1:54321 [ECONNREFUSED] (GET /__backend/rest/v1/groups)',
    );
  });

  it('passes a line that is not JSON through', () => {
    expect(new TerminalLines().format('plain text\n')).toBe('plain text');
  });
});

describe('terminalLevelFor', () => {
  it('shows warnings and errors by default, and exactly LOG_LEVEL otherwise', () => {
    expect(terminalLevelFor('info')).toBe('warn');
    expect(terminalLevelFor('debug')).toBe('debug');
    expect(terminalLevelFor('trace')).toBe('trace');
    expect(terminalLevelFor('warn')).toBe('warn');
    expect(terminalLevelFor('error')).toBe('error');
    expect(terminalLevelFor('silent')).toBe('silent');
  });
});

describe('statusBlock', () => {
  const base = {
    backendUrl: 'http://127.0.0.1:54321',
    embedded: true,
    logFile: '/logs/server.log',
    terminalLevel: 'warn' as const,
  };

  it('names the plain-HTTP LAN address for students and phones, and what it lacks, with HTTPS off', () => {
    const text = statusBlock({
      ...base,
      config: { host: '0.0.0.0', port: 3000, logDir: '/logs' },
      lan: '192.168.1.20',
    });
    expect(text.split('\n')).toEqual([
      'studyhall: app     http://127.0.0.1:3000 (listening on 0.0.0.0)',
      'studyhall: lan     http://192.168.1.20:3000 (students and phones on this network; plain HTTP, without offline use, notifications, push alerts or installing the app: HTTPS=on)',
      'studyhall: backend http://127.0.0.1:54321 (localbase, loopback only)',
      'studyhall: logs    /logs (server.log; here: warnings and errors, LOG_LEVEL=debug adds every request)',
    ]);
  });

  it('prints the HTTPS address for students and phones, the CA page, and that plain HTTP works without the rest', () => {
    const text = statusBlock({
      ...base,
      config: { host: '0.0.0.0', port: 3000, logDir: '/logs' },
      lan: '192.168.1.20',
      https: { port: 3443, mode: 'local-ca' },
      mdns: { state: 'announcing', hostName: 'studyhall.local', addresses: ['192.168.1.20'] },
    });
    expect(text.split('\n').slice(1, 4)).toEqual([
      'studyhall: lan     https://studyhall.local:3443 or https://192.168.1.20:3443 (students and phones on this network)',
      'studyhall: ca      http://192.168.1.20:3000/__ca (install the certificate once per device; then the https address opens without a warning)',
      'studyhall: http    http://192.168.1.20:3000 works too, without offline use, notifications, push alerts or installing the app',
    ]);
    // A certificate of one's own: nothing to install.
    const own = statusBlock({
      ...base,
      config: { host: '0.0.0.0', port: 3000, logDir: '/logs' },
      lan: '192.168.1.20',
      https: { port: 443, mode: 'own-certificate' },
    });
    expect(own).toContain('studyhall: lan     https://192.168.1.20 (students and phones on this network)');
    expect(own).not.toContain('/__ca');
  });

  it('says when the mDNS name is taken or cannot be announced, and leaves it out of the addresses', () => {
    const config = { host: '0.0.0.0', port: 3000, logDir: '/logs' };
    const taken = statusBlock({
      ...base,
      config,
      lan: '192.168.1.20',
      https: { port: 3443, mode: 'local-ca' },
      mdns: { state: 'conflict', hostName: 'studyhall.local', claimedBy: '192.168.1.7' },
    });
    expect(taken).toContain('studyhall: lan     https://192.168.1.20:3443 (');
    expect(taken).toContain(
      'studyhall: name    studyhall.local is used by another device on this network (192.168.1.7): set MDNS_NAME to another name; the address above works',
    );
    const blocked = statusBlock({
      ...base,
      config,
      lan: '192.168.1.20',
      mdns: { state: 'unavailable', hostName: 'studyhall.local', reason: 'addMembership EPERM' },
    });
    expect(blocked).toContain(
      'studyhall: name    studyhall.local is not announced (addMembership EPERM); the address above works',
    );
  });

  it("names the embedded database's engine and where its data is, with the reason when it is not the default", () => {
    const config = { host: '127.0.0.1', port: 3000, logDir: '/logs' };
    const postgres = { engine: 'PostgreSQL 15.18 (embedded)', location: '/data/postgres', notice: null };
    expect(statusBlock({ ...base, config, database: postgres }).split('\n')).toEqual([
      'studyhall: app     http://127.0.0.1:3000 (listening on 127.0.0.1)',
      'studyhall: backend http://127.0.0.1:54321 (localbase, loopback only)',
      'studyhall: engine  PostgreSQL 15.18 (embedded) (/data/postgres)',
      'studyhall: logs    /logs (server.log; here: warnings and errors, LOG_LEVEL=debug adds every request)',
    ]);
    const kept = {
      engine: 'PGlite 0.5.14 (PostgreSQL 18.6)',
      location: '/data/pgdata',
      notice: 'DATA_DIR holds a PGlite database',
    };
    expect(statusBlock({ ...base, config, database: kept }).split('\n')).toContain(
      'studyhall: note    DATA_DIR holds a PGlite database',
    );
    expect(statusBlock({ ...base, config, embedded: false })).not.toContain('engine');
  });

  it('says so when there is no network, and has no LAN line for a loopback address', () => {
    expect(
      statusBlock({ ...base, config: { host: '0.0.0.0', port: 3000, logDir: '/logs' }, lan: undefined }),
    ).toContain('studyhall: lan     no network address found');
    const loopback = statusBlock({
      ...base,
      config: { host: '127.0.0.1', port: 3000, logDir: '/logs' },
      lan: '10.0.0.2',
    });
    expect(loopback).not.toContain('lan ');
    expect(loopback).not.toContain('https');
  });

  it('warns that the relay is open to the network with pairing off, and only then', () => {
    const config = { host: '0.0.0.0', port: 3000, logDir: '/logs' };
    const relayLine =
      'studyhall: relay   PIP_PAIRING=off: anyone on the network can read and drive the focus timer (for a single-user machine only)';
    expect(statusBlock({ ...base, config: { ...config, pipPairing: false }, lan: '10.0.0.2' }).split('\n')).toContain(
      relayLine,
    );
    expect(statusBlock({ ...base, config: { ...config, pipPairing: true }, lan: '10.0.0.2' })).not.toContain('relay');
    expect(
      statusBlock({ ...base, config: { ...config, host: '127.0.0.1', pipPairing: false }, lan: '10.0.0.2' }),
    ).not.toContain('relay');
  });

  it("prints the admin console's address when admin mode is ready, and nothing about it otherwise", () => {
    const config = { host: '0.0.0.0', port: 3000, logDir: '/logs' };
    const lines = statusBlock({ ...base, config, adminReady: true, lan: '192.168.1.20' }).split('\n');
    expect(lines).toContain('studyhall: admin   http://127.0.0.1:3000/__admin/ (admin console)');
    expect(statusBlock({ ...base, config, adminReady: false, lan: '192.168.1.20' })).not.toContain('admin');
  });

  it('picks the first IPv4 address that is not loopback nor a container bridge', () => {
    const address = (family: 'IPv4' | 'IPv6', value: string, internal: boolean) =>
      ({ address: value, family, internal, netmask: '', mac: '', cidr: null }) as never;
    expect(
      lanAddress({
        lo: [address('IPv4', '127.0.0.1', true)],
        docker0: [address('IPv4', '172.17.0.1', false)],
        eth0: [address('IPv6', 'fe80::1', false), address('IPv4', '192.168.1.20', false)],
        wlan0: [address('IPv4', '10.0.0.2', false)],
      }),
    ).toBe('192.168.1.20');
    expect(lanAddress({ lo: [address('IPv4', '127.0.0.1', true)] })).toBeUndefined();
  });
});

describe('openServerLog', () => {
  it('writes JSON to server.log (0600), redacted, rotates it by size and keeps the configured number of old files', async () => {
    const temp = await makeTempDir('server-log');
    try {
      const shown: string[] = [];
      const serverLog = await openServerLog({
        logDir: temp.dir,
        level: 'info',
        rotateSize: '2K',
        keepRotated: 2,
        terminal: { write: (text) => shown.push(text) },
      });
      const logger = pino(serverLog.loggerOptions('gateway'), serverLog.loggerOptions('gateway').stream);
      for (let index = 0; index < 60; index += 1)
        logger.info({ req: { url: `/api/health?apikey=${jwt}&n=${index}` } }, 'incoming request');
      logger.warn({ err: new Error(`refused ${jwt}`) }, 'backend request failed');
      await serverLog.close();

      const files = (await readdir(temp.dir)).sort();
      expect(files).toEqual(['server.log', 'server.log.1', 'server.log.2']);
      for (const file of files) expect((await stat(path.join(temp.dir, file))).mode & 0o777).toBe(0o600);
      const current = await readFile(path.join(temp.dir, 'server.log'), 'utf8');
      const entries = current
        .trim()
        .split('\n')
        .map((line) => JSON.parse(line) as { msg: string; name: string });
      expect(entries.at(-1)).toMatchObject({ msg: 'backend request failed', name: 'gateway' });
      // Lines reach the file in batches, and the file rotates between them: the last request is in one of the files.
      const all = (await Promise.all(files.map((file) => readFile(path.join(temp.dir, file), 'utf8')))).join('');
      expect(all).toContain('apikey=[redacted]&n=59');
      expect(all).not.toContain(jwt);
      // Only the warning reached the terminal, as one readable line.
      expect(shown).toHaveLength(1);
      expect(shown[0]).toMatch(/^\d\d:\d\d:\d\d WARN {2}gateway {3}backend request failed: refused \[redacted\]\n$/);
    } finally {
      await temp.remove();
    }
  });
});
