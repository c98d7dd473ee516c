// @vitest-environment happy-dom
// Every state of the phone-remote panel, as a student (and a screen reader) meets it: getting a
// code, paired and waiting, a phone connected, a phone gone, a code the server forgot, the server
// lost, pairing off, the server unreachable or full or refusing, and another tab holding the remote.
// The page's origin is a small loopback server answering /api/client-config with two LAN addresses,
// as a gateway bound to every interface does.
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { cleanup, fireEvent, render, screen, waitFor, within } from '@testing-library/preact';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import type { PairingView } from '../../lib/pairing.ts';
import { pairing } from '../../state/focus.ts';
import { PhoneRemote } from './PhoneRemote.tsx';
import { forgetClientConfig } from '../../lib/client-config.ts';

const LAN = 'http://192.168.1.20:3000';

let server: http.Server;

beforeAll(async () => {
  server = http.createServer((request, response) => {
    if (request.url !== '/api/client-config') return void response.writeHead(404, { connection: 'close' }).end();
    response.writeHead(200, { 'content-type': 'application/json', connection: 'close' });
    response.end(
      JSON.stringify({ backend_url: '/__backend', anon_key: 'anon', companion_urls: [LAN, 'http://10.0.0.7:3000'] }),
    );
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  (window as unknown as { happyDOM: { setURL(url: string): void } }).happyDOM.setURL(`${origin}/focus`);
  forgetClientConfig();
});
afterAll(() => new Promise((resolve) => server.close(resolve)));
afterEach(cleanup);

async function openPanel(view: PairingView): Promise<HTMLElement> {
  pairing.value = view;
  render(<PhoneRemote />);
  fireEvent.click(screen.getByRole('button', { name: /^Phone remote/ }));
  return screen.findByRole('region', { name: 'Phone remote' });
}

const paired = (overrides: Partial<Extract<PairingView, { status: 'on' }>> = {}): PairingView => ({
  status: 'on',
  code: 'K7M2QD',
  renewed: false,
  stream: 'live',
  phone: { state: 'none' },
  ...overrides,
});

describe('the phone remote panel', () => {
  it('shows a skeleton while it gets a code', async () => {
    const panel = await openPanel({ status: 'pairing' });
    expect(within(panel).getByText('Getting a pairing code…')).toBeTruthy();
    expect(panel.querySelector('[aria-busy="true"]')).not.toBeNull();
  });

  it('shows the code, spelled out for screen readers, and a QR code of the link that pairs the phone', async () => {
    const panel = await openPanel(paired());
    expect(within(panel).getByText('Waiting for your phone')).toBeTruthy();
    expect(within(panel).getByText('K7M 2QD')).toBeTruthy();
    expect(within(panel).getByText('K 7 M 2 Q D').className).toContain('visually-hidden');
    const qr = await within(panel).findByRole('img', {
      name: /QR code: opens the remote on your phone, paired with this page/,
    });
    expect(qr.getAttribute('aria-label')).toContain(`${LAN}/companion/#code=K7M2QD`);
    expect(qr.querySelector('path')?.getAttribute('d')).toMatch(/^M\d+ \d+h/);
    expect(
      within(panel)
        .getByRole('link', { name: `${LAN}/companion/` })
        .getAttribute('href'),
    ).toBe(`${LAN}/companion/#code=K7M2QD`);
    expect(panel.querySelector('span.url-chip')?.textContent).toBe('http://10.0.0.7:3000/companion/');
  });

  it('says that adding the remote to a home screen needs the secure address, as its link is plain HTTP', async () => {
    const panel = await openPanel(paired());
    await within(panel).findByText(
      'Adding the remote to your home screen needs the secure (https) address, which this server does not offer yet — ask whoever runs it.',
    );
  });

  it('says when a phone is connected, on the button too', async () => {
    const panel = await openPanel(paired({ phone: { state: 'present', since: Date.now() } }));
    expect(within(panel).getByText('Phone connected')).toBeTruthy();
    expect(screen.getByRole('button', { name: /^Phone remote/ }).querySelector('.remote-dot-inline')).not.toBeNull();
    // The live region says it whether or not the panel is open.
    const live = screen.getByTestId('phone-presence');
    expect([live.getAttribute('aria-live'), live.textContent]).toEqual(['polite', 'Phone connected']);
  });

  it('says when the phone left, and keeps the code for it to come back', async () => {
    const since = new Date(2026, 10, 23, 14, 32).getTime();
    const panel = await openPanel(paired({ phone: { state: 'gone', since } }));
    expect(within(panel).getByText(/^Phone left at /).textContent).toContain(
      new Date(since).toLocaleTimeString([], { hour: '2-digit', minute: '2-digit' }),
    );
    expect(within(panel).getByText('K7M 2QD')).toBeTruthy();
  });

  it('warns when the server forgot the old code', async () => {
    const panel = await openPanel(paired({ renewed: true }));
    expect(within(panel).getByText(/The server forgot the old code/)).toBeTruthy();
  });

  it('says the server is not answering while the stream is lost, and that the timer keeps running', async () => {
    const panel = await openPanel(paired({ stream: 'lost' }));
    expect(within(panel).getByText('Server not reachable')).toBeTruthy();
    expect(within(panel).getByText(/Your timer keeps running here/)).toBeTruthy();
  });

  it('explains pairing off: no code, any phone on the network, and no server setting to change', async () => {
    const panel = await openPanel({ status: 'off', stream: 'live', phone: { state: 'none' } });
    expect(within(panel).getByText('No phone yet')).toBeTruthy();
    expect(within(panel).getByText(/Pairing is off on this server/)).toBeTruthy();
    // A student cannot restart the server: the panel does not tell them to.
    expect(panel.textContent).not.toMatch(/PIP_PAIRING|restart|start the server/i);
    expect(within(panel).queryByText('Pairing code')).toBeNull();
    const qr = await within(panel).findByRole('img', { name: /^QR code: opens the remote on your phone \(/ });
    expect(qr.getAttribute('aria-label')).toContain(`${LAN}/companion/)`);
  });

  it('says the server is unreachable, when it will try again, and offers to try now', async () => {
    const panel = await openPanel({ status: 'unreachable', retryAt: Date.now() + 8_000 });
    expect(within(panel).getByText('Server not reachable')).toBeTruthy();
    expect(within(panel).getByText(/Trying again in [78] s\./)).toBeTruthy();
    expect(within(panel).getByRole('button', { name: 'Try now' })).toBeTruthy();
  });

  it('says the server is full, or passes on its refusal', async () => {
    let panel = await openPanel({ status: 'full', retryAt: Date.now() + 30_000 });
    expect(within(panel).getByText(/pairing as many focus pages as it can/)).toBeTruthy();
    cleanup();
    panel = await openPanel({ status: 'refused', message: 'Not from here.', retryAt: Date.now() + 15_000 });
    expect(within(panel).getByText('Not from here.')).toBeTruthy();
    expect(within(panel).getByText('Pairing refused')).toBeTruthy();
  });

  it('after a 429, says how long the server asked to wait and offers no button that would be refused', async () => {
    const panel = await openPanel({
      status: 'rate_limited',
      message: 'This address already has 16 focus pages paired.',
      retryAt: Date.now() + 30_000,
    });
    expect(within(panel).getByText('Too many tries')).toBeTruthy();
    expect(within(panel).getByText('This address already has 16 focus pages paired.')).toBeTruthy();
    expect(within(panel).getByText(/^Too many tries; try again in (29|30) s\.$/)).toBeTruthy();
    expect(within(panel).queryByRole('button', { name: 'Try now' })).toBeNull();
  });

  it('points to the tab that holds the remote', async () => {
    const panel = await openPanel({ status: 'elsewhere' });
    expect(within(panel).getByText(/Another studyhall tab in this browser holds the phone remote/)).toBeTruthy();
  });

  it('closes when the student clicks elsewhere', async () => {
    await openPanel(paired());
    fireEvent.pointerDown(document.body);
    await waitFor(() => expect(screen.queryByRole('region', { name: 'Phone remote' })).toBeNull());
  });
});
