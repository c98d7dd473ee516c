// @vitest-environment happy-dom
// The Updates card as the server decides it: to a caller the server says may not update (another
// device on the network without an admin session) it shows the version only, with no controls and
// no latest change; to the owner it shows both. The page's origin is a small loopback server
// answering /api/version and /api/update-capabilities as the gateway does for each caller.
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { cleanup, render, screen, waitFor } from '@testing-library/preact';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { UpdateSection } from './UpdateSection.tsx';

let server: http.Server;
let answers: { capabilities: number | object; commitMessage: string | null };

beforeAll(async () => {
  server = http.createServer((request, response) => {
    const send = (status: number, body: object) => {
      response.writeHead(status, { 'content-type': 'application/json', connection: 'close' });
      response.end(JSON.stringify(body));
    };
    if (request.url === '/api/version')
      return send(200, { version: '1.4.0', git_sha: 'a'.repeat(40), commit_message: answers.commitMessage });
    if (request.url === '/api/update-capabilities')
      return typeof answers.capabilities === 'number'
        ? send(answers.capabilities, { error: 'internal_error', message: 'Something failed.' })
        : send(200, answers.capabilities);
    send(404, { error: 'not_found', message: 'No such route.' });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  (window as unknown as { happyDOM: { setURL(url: string): void } }).happyDOM.setURL(`${origin}/settings`);
});
afterAll(() => new Promise((resolve) => server.close(resolve)));
afterEach(cleanup);

async function renderSettled(): Promise<void> {
  render(<UpdateSection />);
  await screen.findByText('1.4.0');
}

describe('the Updates card', () => {
  it('hides the controls and the latest change when the server says this caller may not update', async () => {
    answers = { capabilities: { can_update: false, admin_available: true }, commitMessage: null };
    await renderSettled();
    await screen.findByText(/Updates are started on the computer running studyhall, or with its admin session/);
    expect(screen.queryByRole('button', { name: 'Check for updates' })).toBeNull();
    expect(screen.queryByRole('button', { name: 'Update now' })).toBeNull();
    expect(screen.queryByText('Latest change')).toBeNull();
  });

  it('hides the controls when the server cannot say, and shows no latest change even if one is sent', async () => {
    answers = { capabilities: 500, commitMessage: 'Fix the secret thing' };
    await renderSettled();
    await screen.findByText('Updates are started on the computer running studyhall.');
    expect(screen.queryByRole('button', { name: 'Update now' })).toBeNull();
    expect(screen.queryByText('Fix the secret thing')).toBeNull();
  });

  it('shows both controls and the latest change to the owner', async () => {
    answers = { capabilities: { can_update: true, admin_available: false }, commitMessage: 'Add a changelog' };
    await renderSettled();
    await waitFor(() => expect(screen.getByRole('button', { name: 'Update now' })).toBeTruthy());
    expect(screen.getByRole('button', { name: 'Check for updates' })).toBeTruthy();
    expect(screen.getByText('Add a changelog')).toBeTruthy();
    expect(screen.queryByText(/Updates are started on/)).toBeNull();
  });
});
