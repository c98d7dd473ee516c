// @vitest-environment happy-dom
// A teacher who opened the app at http://127.0.0.1 hands out what a student's device can open: the
// students' address the server names (app_url), never the page's loopback origin. The page's origin
// is a small loopback server standing in for the gateway: it answers /api/client-config as a server
// on every interface with HTTPS does, and the backend calls the links come from (an invite created,
// the group's invites listed, a recovery mail asked for), recording what the app sent.
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { cleanup, fireEvent, render, screen } from '@testing-library/preact';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { pairing } from '../state/focus.ts';
import { requestPasswordReset } from '../state/account.ts';
import { PhoneRemote } from '../routes/focus/PhoneRemote.tsx';
import { inviteLink, listInvites } from './community/groups.ts';
import { createBuddyInvite } from './community/invites.ts';
import { forgetClientConfig } from './client-config.ts';

const STUDENTS_ADDRESS = 'https://192.168.1.20:3443';
const PLAIN_LAN = 'http://192.168.1.20:3000';
const GROUP_ID = '6f1c2d3e-4a5b-4c6d-8e9f-0a1b2c3d4e5f';
const INVITE_TOKEN = '0b9f6a1e-2c3d-4e5f-8a9b-c0d1e2f3a4b5';

let server: http.Server;
let origin: string;
/** The redirect_to of each recovery mail asked for. */
const recoveryRedirects: (string | null)[] = [];

function answer(response: http.ServerResponse, status: number, body: unknown): void {
  response.writeHead(status, { 'content-type': 'application/json', connection: 'close' });
  response.end(JSON.stringify(body));
}

beforeAll(async () => {
  server = http.createServer((request, response) => {
    const url = new URL(request.url ?? '/', 'http://gateway');
    request.resume();
    request.on('end', () => {
      if (url.pathname === '/api/client-config')
        return answer(response, 200, {
          backend_url: '/__backend',
          anon_key: 'anon',
          app_url: STUDENTS_ADDRESS,
          companion_urls: [PLAIN_LAN],
          https_url: `https://127.0.0.1:3443`,
        });
      if (url.pathname === '/__backend/rest/v1/rpc/community_create_invite') return answer(response, 200, INVITE_TOKEN);
      if (url.pathname === '/__backend/rest/v1/group_invites')
        return answer(response, 200, [
          { token: INVITE_TOKEN, expires_at: null, max_uses: null, uses_count: 0, created_at: '2026-11-28T09:00:00Z' },
        ]);
      if (url.pathname === '/__backend/auth/v1/recover') {
        recoveryRedirects.push(url.searchParams.get('redirect_to'));
        return answer(response, 200, {});
      }
      answer(response, 404, { error: 'not_found' });
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  (window as unknown as { happyDOM: { setURL(url: string): void } }).happyDOM.setURL(`${origin}/groups`);
  forgetClientConfig();
});
afterAll(() => new Promise((resolve) => server.close(resolve)));
afterEach(cleanup);

describe('what a teacher at a loopback address hands out', () => {
  it("is an invite link at the students' address, for a buddy invite and for each of a group's invites", async () => {
    expect(await inviteLink(await createBuddyInvite(7, 1))).toBe(`${STUDENTS_ADDRESS}/invite/${INVITE_TOKEN}`);
    const invites = await listInvites(GROUP_ID);
    expect(invites.map((invite) => invite.link)).toEqual([`${STUDENTS_ADDRESS}/invite/${INVITE_TOKEN}`]);
    expect(JSON.stringify(invites)).not.toContain(origin);
  });

  it("asks for a recovery mail that returns to the students' address", async () => {
    await requestPasswordReset('mira@example.com');
    expect(recoveryRedirects).toEqual([`${STUDENTS_ADDRESS}/reset-password`]);
  });

  it("draws the phone-pairing QR code of the students' address, and lists the plain-HTTP one besides", async () => {
    pairing.value = { status: 'on', code: 'K7M2QD', renewed: false, stream: 'live', phone: { state: 'none' } };
    render(<PhoneRemote />);
    fireEvent.click(screen.getByRole('button', { name: /^Phone remote/ }));
    const panel = await screen.findByRole('region', { name: 'Phone remote' });
    const qr = await screen.findByRole('img', { name: /^QR code: opens the remote on your phone, paired/ });
    expect(qr.getAttribute('aria-label')).toContain(`(${STUDENTS_ADDRESS}/companion/#code=K7M2QD)`);
    expect(screen.getByRole('link', { name: `${STUDENTS_ADDRESS}/companion/` }).getAttribute('href')).toBe(
      `${STUDENTS_ADDRESS}/companion/#code=K7M2QD`,
    );
    // Its link is https: nothing to say about the secure address, but where a phone gets the certificate.
    expect(panel.textContent).not.toContain('secure (https) address');
    expect(screen.getByText(/^A phone that warns about the certificate installs it once from/).textContent).toBe(
      `A phone that warns about the certificate installs it once from ${PLAIN_LAN}/__ca.`,
    );
    expect(screen.getByText(/^Other addresses of this computer/).textContent).toContain(`${PLAIN_LAN}/companion/`);
    expect(panel.textContent).not.toContain(origin);
  });
});
