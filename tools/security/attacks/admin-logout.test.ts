// attack: keep using an admin cookie after logging out. The cookie is signed and carries its own
// 12-hour expiry, so clearing it in the browser ends nothing for whoever kept a copy: the same
// value used to open /__admin/* and turn /__backend calls into service-role calls until it expired,
// and with ADMIN_SECRET even after a restart. Now the logout ends the session on the server.
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { signInWithSecret } from '#gateway/test/admin-helpers.ts';
import { makeTempDir, startTestGateway, type TestGateway } from '#gateway/test/helpers.ts';

const ADMIN_SECRET = 'logout-attack-admin-secret-32ch!';
const SERVICE_KEY = 'service-key-of-the-backend';

let upstream: http.Server;
let backendUrl: string;
/** The apikey each request reaching the backend carried. */
const seenKeys: (string | undefined)[] = [];
let dataDir: { dir: string; remove(): Promise<void> };

async function startGateway(): Promise<TestGateway> {
  return startTestGateway({
    backend: { url: backendUrl, anonKey: 'anon-key', serviceRoleKey: SERVICE_KEY },
    config: { admin: { enabled: true, secret: ADMIN_SECRET, emails: [] }, dataDir: dataDir.dir },
  });
}

/** What one cookie opens: an admin page (404 for an unknown page once past the access hook) and the proxy's key. */
async function reach(gateway: TestGateway, cookie: string) {
  const consolePage = await gateway.app.inject({
    url: '/__admin/no-such-page',
    headers: { cookie, accept: 'application/json' },
  });
  seenKeys.length = 0;
  const proxied = await gateway.app.inject({ url: '/__backend/rest/v1/user_backups?select=*', headers: { cookie } });
  expect(proxied.statusCode).toBe(200);
  const updateStatus = await gateway.app.inject({
    url: '/api/update-capabilities',
    remoteAddress: '192.168.1.77',
    headers: { cookie },
  });
  return {
    console: consolePage.json().error as string,
    backendKey: seenKeys[0],
    updateStatus: updateStatus.json() as Record<string, unknown>,
  };
}

beforeAll(async () => {
  dataDir = await makeTempDir('logout-attack');
  upstream = http.createServer((request, response) => {
    seenKeys.push(request.headers.apikey as string | undefined);
    response.writeHead(200, { 'content-type': 'application/json' });
    response.end('[]');
  });
  await new Promise<void>((resolve) => upstream.listen(0, '127.0.0.1', resolve));
  backendUrl = `http://127.0.0.1:${(upstream.address() as AddressInfo).port}`;
});

afterAll(async () => {
  upstream.close();
  await dataDir.remove();
});

describe('attack: reusing an admin cookie after POST /__admin/logout', () => {
  it('works before the logout, and nowhere after it, also after a restart', async () => {
    const first = await startGateway();
    let cookie: string;
    let other: string;
    try {
      cookie = await signInWithSecret(first.app, ADMIN_SECRET);
      other = await signInWithSecret(first.app, ADMIN_SECRET);
      const before = await reach(first, cookie);
      expect(before.console).toBe('not_found');
      expect(before.backendKey).toBe(SERVICE_KEY);
      expect(before.updateStatus.can_update).toBe(true);

      const logout = await first.app.inject({ method: 'POST', url: '/__admin/logout', headers: { cookie } });
      expect(logout.statusCode).toBe(200);
      expect(logout.json()).toEqual({ ok: true, signed_out: true });

      const after = await reach(first, cookie);
      expect(after.console).toBe('admin_login_required');
      expect(after.backendKey).toBe('anon-key');
      expect(after.updateStatus.can_update).toBe(false);
      // A second session of the same secret is not ended by the first one's logout.
      expect((await reach(first, other)).console).toBe('not_found');
    } finally {
      await first.close();
    }

    const restarted = await startGateway();
    try {
      const afterRestart = await reach(restarted, cookie);
      expect(afterRestart.console).toBe('admin_login_required');
      expect(afterRestart.backendKey).toBe('anon-key');
      expect((await reach(restarted, other)).backendKey).toBe(SERVICE_KEY);
      const fresh = await signInWithSecret(restarted.app, ADMIN_SECRET);
      expect((await reach(restarted, fresh)).console).toBe('not_found');
    } finally {
      await restarted.close();
    }
  });

  it('keeps the list of ended sessions private to the owner', async () => {
    const { stat } = await import('node:fs/promises');
    const mode = (await stat(path.join(dataDir.dir, 'admin-ended-sessions.json'))).mode & 0o777;
    expect(mode).toBe(0o600);
  });
});
