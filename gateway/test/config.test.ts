import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { repoRoot } from '#db/paths.ts';
import { loadConfig } from '../src/config.ts';

describe('loadConfig', () => {
  it("applies the documented defaults (the README's configuration table) to an empty environment", () => {
    const result = loadConfig({ HOME: '/home/student' });
    expect(result.ok).toBe(true);
    if (!result.ok) return;
    expect(result.config).toMatchObject({
      port: 3000,
      host: '0.0.0.0',
      localbasePort: 54321,
      backend: undefined,
      logDir: '/home/student/.local/state/studyhall/logs',
      admin: { enabled: false, secret: undefined, emails: [] },
      ai: { openai: false, gemini: false },
      update: { remote: 'origin', installCommand: 'npm ci', restart: 'self' },
    });
  });

  it('reads a hosted backend, admin e-mails from both variables and AI keys as booleans', () => {
    const result = loadConfig({
      BACKEND_URL: 'https://project.supabase.co/',
      BACKEND_ANON_KEY: 'anon',
      BACKEND_SERVICE_ROLE_KEY: 'service',
      ADMIN_EMAIL: 'Owner@Example.com',
      ADMIN_EMAILS: 'a@example.com, owner@example.com',
      ENABLE_ADMIN_MODE: 'true',
      OPENAI_API_KEY: 'sk-secret',
      XDG_STATE_HOME: '/state',
    });
    if (!result.ok) throw new Error(result.problems.join('\n'));
    expect(result.config.backend).toEqual({
      url: 'https://project.supabase.co',
      anonKey: 'anon',
      serviceRoleKey: 'service',
    });
    expect(result.config.admin.emails).toEqual(['owner@example.com', 'a@example.com']);
    expect(result.config.admin.enabled).toBe(true);
    expect(result.config.ai).toEqual({ openai: true, gemini: false });
    expect(result.config.logDir).toBe('/state/studyhall/logs');
  });

  it('reports every bad value, one line per problem', () => {
    const result = loadConfig({
      PORT: 'eighty',
      LOCALBASE_PORT: '70000',
      BACKEND_URL: 'ftp://example.com',
      ENABLE_ADMIN_MODE: 'maybe',
      ADMIN_SECRET: 'short',
      ADMIN_EMAILS: 'not-an-address',
      UPDATE_RESTART: 'sometimes',
    });
    expect(result.ok).toBe(false);
    if (result.ok) return;
    const fields = result.problems.map((line) => line.split(':')[0]);
    expect(fields).toEqual(
      expect.arrayContaining([
        'PORT',
        'LOCALBASE_PORT',
        'BACKEND_URL',
        'ENABLE_ADMIN_MODE',
        'ADMIN_SECRET',
        'ADMIN_EMAILS.0',
        'UPDATE_RESTART',
      ]),
    );
    for (const line of result.problems) expect(line).not.toContain('\n');
  });

  it('refuses a backend URL without its anon key, and keys without a URL', () => {
    const withoutKey = loadConfig({ BACKEND_URL: 'http://127.0.0.1:9999' });
    expect(withoutKey.ok ? [] : withoutKey.problems).toEqual(['BACKEND_ANON_KEY: is required when BACKEND_URL is set']);
    const withoutUrl = loadConfig({ BACKEND_ANON_KEY: 'anon' });
    expect(withoutUrl.ok ? [] : withoutUrl.problems).toEqual(['BACKEND_URL: is required when backend keys are set']);
  });
});

describe('loadConfig: the shared environment rules', () => {
  it('reads LOG_LEVEL as one of pino levels, info by default, and refuses any other word', () => {
    const byDefault = loadConfig({ HOME: '/home/student' });
    expect(byDefault.ok && byDefault.config.logLevel).toBe('info');
    const debug = loadConfig({ LOG_LEVEL: 'debug' });
    expect(debug.ok && debug.config.logLevel).toBe('debug');
    const verbose = loadConfig({ LOG_LEVEL: 'verbose' });
    expect(verbose.ok ? [] : verbose.problems).toEqual([
      'LOG_LEVEL: must be one of trace, debug, info, warn, error, fatal, silent',
    ]);
  });

  it('takes an empty variable as unset and resolves relative folders', () => {
    const result = loadConfig({
      PORT: '',
      HOST: '',
      LOCALBASE_PORT: ' ',
      DATA_DIR: '',
      DATABASE_URL: '',
      LOG_DIR: 'logs',
      LOG_LEVEL: '',
    });
    if (!result.ok) throw new Error(result.problems.join('\n'));
    expect(result.config).toMatchObject({
      port: 3000,
      host: '0.0.0.0',
      localbasePort: 54321,
      databaseUrl: undefined,
      logLevel: 'info',
    });
    expect(result.config.dataDir).toBe(path.join(repoRoot, '.data'));
    expect(result.config.logDir).toBe(path.resolve('logs'));
    const relative = loadConfig({ DATA_DIR: 'somewhere/data' });
    expect(relative.ok && relative.config.dataDir).toBe(path.resolve('somewhere/data'));
  });

  it('accepts only a Postgres URL as DATABASE_URL, socket form included', () => {
    const socket = loadConfig({ DATABASE_URL: 'postgres:///studyhall?host=/var/run/postgresql' });
    expect(socket.ok && socket.config.databaseUrl).toBe('postgres:///studyhall?host=/var/run/postgresql');
    for (const bad of ['studyhall', 'http://db.example.com/studyhall', 'mysql://localhost/studyhall']) {
      const result = loadConfig({ DATABASE_URL: bad });
      expect(result.ok ? [] : result.problems).toEqual(['DATABASE_URL: must be a postgres:// or postgresql:// URL']);
    }
  });

  it('reads PUBLIC_URL without its trailing slash, and refuses one that is not http(s)', () => {
    const set = loadConfig({ PUBLIC_URL: 'https://study.example/' });
    expect(set.ok && set.config.publicUrl).toBe('https://study.example');
    const unset = loadConfig({});
    expect(unset.ok && unset.config.publicUrl).toBeUndefined();
    const bad = loadConfig({ PUBLIC_URL: 'study.example' });
    expect(bad.ok ? [] : bad.problems).toEqual(['PUBLIC_URL: must be an http(s) URL']);
  });
});

describe('PIP_PAIRING', () => {
  it('is on by default (also when empty), and off only with off, false or 0', () => {
    const byDefault = loadConfig({ HOME: '/home/student' });
    expect(byDefault.ok && byDefault.config.pipPairing).toBe(true);
    const empty = loadConfig({ PIP_PAIRING: '' });
    expect(empty.ok && empty.config.pipPairing).toBe(true);
    for (const value of ['off', 'false', '0']) {
      const result = loadConfig({ PIP_PAIRING: value });
      expect(result.ok && result.config.pipPairing).toBe(false);
    }
    for (const value of ['on', 'true', '1']) {
      const result = loadConfig({ PIP_PAIRING: value });
      expect(result.ok && result.config.pipPairing).toBe(true);
    }
    const off = loadConfig({ PIP_PAIRING: 'off' });
    expect(off.ok && off.config.pipPairing).toBe(false);
  });

  it('refuses anything else with one line', () => {
    const result = loadConfig({ PIP_PAIRING: 'sometimes' });
    expect(result.ok ? [] : result.problems).toEqual(['PIP_PAIRING: must be on or off']);
  });
});

describe('HTTPS and mDNS settings', () => {
  it('serve HTTPS on 3443, move only browsers that trust it, and announce studyhall.local, by default', () => {
    const result = loadConfig({});
    if (!result.ok) throw new Error(result.problems.join('\n'));
    expect(result.config.https).toEqual({ enabled: true, port: 3443, portChosen: false, redirect: 'trusted' });
    expect(result.config.mdns).toEqual({ enabled: true, hostName: 'studyhall.local' });
  });

  it('read a certificate of one’s own, another name, and off', () => {
    const result = loadConfig({
      HTTPS: 'off',
      HTTPS_PORT: '8443',
      HTTPS_REDIRECT: 'always',
      TLS_CERT_FILE: '/etc/school/cert.pem',
      TLS_KEY_FILE: '/etc/school/key.pem',
      MDNS: 'off',
      MDNS_NAME: 'Physics-Room.local',
    });
    if (!result.ok) throw new Error(result.problems.join('\n'));
    expect(result.config.https).toEqual({
      enabled: false,
      port: 8443,
      portChosen: true,
      redirect: 'always',
      certFile: '/etc/school/cert.pem',
      keyFile: '/etc/school/key.pem',
    });
    expect(result.config.mdns).toEqual({ enabled: false, hostName: 'physics-room.local' });
  });

  it('refuse a bad value, one TLS file alone, and HTTPS on the HTTP port, one line each', () => {
    const result = loadConfig({
      HTTPS: 'maybe',
      HTTPS_REDIRECT: 'sometimes',
      TLS_CERT_FILE: '/etc/school/cert.pem',
      MDNS_NAME: 'room.school.example',
      PORT: '8080',
      HTTPS_PORT: '8080',
    });
    expect(result.ok ? [] : result.problems).toEqual([
      'HTTPS: must be on or off',
      'HTTPS_REDIRECT: must be trusted, always or off',
      'MDNS_NAME: must be one DNS label (letters, digits and inner dashes), with or without .local',
      'TLS_KEY_FILE: set both TLS files or neither',
      'HTTPS_PORT: must differ from PORT',
    ]);
  });
});

describe('SHARED_STATE', () => {
  const hosted = { BACKEND_URL: 'https://project.supabase.co', BACKEND_ANON_KEY: 'anon' };
  const sharedStateOf = (env: NodeJS.ProcessEnv) => {
    const result = loadConfig(env);
    if (!result.ok) throw new Error(result.problems.join('\n'));
    return result.config.sharedState;
  };

  it('is local for a server alone, database with DATABASE_URL, backend when asked', () => {
    expect(sharedStateOf({})).toBe('local');
    expect(sharedStateOf(hosted)).toBe('local');
    expect(sharedStateOf({ DATABASE_URL: 'postgresql://studyhall@db.school.test/studyhall' })).toBe('database');
    expect(sharedStateOf({ DATABASE_URL: 'postgresql://db.school.test/studyhall', SHARED_STATE: 'local' })).toBe(
      'local',
    );
    expect(sharedStateOf({ ...hosted, BACKEND_SERVICE_ROLE_KEY: 'service', SHARED_STATE: 'backend' })).toBe('backend');
  });

  it('refuses a backend without the service key, the database of a hosted project and other values', () => {
    const problems = (env: NodeJS.ProcessEnv) => {
      const result = loadConfig(env);
      return result.ok ? [] : result.problems;
    };
    expect(problems({ ...hosted, SHARED_STATE: 'backend' })).toEqual([
      'SHARED_STATE: backend needs BACKEND_URL and BACKEND_SERVICE_ROLE_KEY',
    ]);
    expect(problems({ SHARED_STATE: 'backend' })).toEqual([
      'SHARED_STATE: backend needs BACKEND_URL and BACKEND_SERVICE_ROLE_KEY',
    ]);
    expect(problems({ ...hosted, SHARED_STATE: 'database' })).toEqual([
      'SHARED_STATE: database needs localbase in this process (unset BACKEND_URL, or use backend)',
    ]);
    expect(problems({ SHARED_STATE: 'redis' })).toEqual([expect.stringMatching(/^SHARED_STATE: must be local/)]);
  });
});
