// @vitest-environment happy-dom
// The focus screen in a DOM: the keyboard shortcuts, the counters' accessible names, a relayed
// action from the phone changing the number on screen once per event id, and the snapshot each
// change posts to /__pip/state. The page's origin is a small loopback server that keeps the latest
// posted snapshot, as the relay does (the real relay is driven end to end in tools/e2e).
import { cleanup, fireEvent, render, screen, waitFor } from '@testing-library/preact';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { ActionDeduper } from '../../lib/relay.ts';
import { idleTimer } from '../../lib/timer.ts';
import { applyPipAction } from '../../state/focus.ts';
import { timer } from '../../state/signals.ts';
import FocusPage from './FocusPage.tsx';

let server: http.Server;
let latestSnapshot: unknown = null;

beforeAll(async () => {
  server = http.createServer((request, response) => {
    let body = '';
    request.on('data', (chunk) => (body += chunk));
    request.on('end', () => {
      if (request.method === 'POST' && request.url === '/__pip/state') latestSnapshot = JSON.parse(body);
      response.writeHead(200, { 'content-type': 'application/json', connection: 'close' }).end('{"ok":true}');
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  (window as unknown as { happyDOM: { setURL(url: string): void } }).happyDOM.setURL(`${origin}/focus`);
});
afterAll(async () => {
  // Let the last snapshot posts land before the server goes away.
  await postSnapshotsSettled();
  await new Promise((resolve) => server.close(resolve));
});

async function postSnapshotsSettled(): Promise<void> {
  await new Promise((resolve) => setTimeout(resolve, 500));
}

beforeEach(() => {
  timer.value = idleTimer({ focusMinutes: 25, breakMinutes: 5, cycles: 4 });
  render(<FocusPage />);
});
afterEach(cleanup);

const count = (kind: string) => document.getElementById(`count-${kind}`)?.textContent;

describe('the focus screen', () => {
  it('labels every control as the student reads it', () => {
    for (const name of ['Start', 'Finish', 'Correct', 'Incorrect', 'Skip', 'Undo', 'Target']) {
      expect(screen.getByRole('button', { name })).toBeTruthy();
    }
    expect(screen.getByText('25:00')).toBeTruthy();
  });

  it('starts and pauses with Space, counts with C, I and S, and undoes with Z', async () => {
    fireEvent.keyDown(document.body, { key: ' ' });
    expect(timer.value.running).toBe(true);
    expect(await screen.findByRole('button', { name: 'Pause' })).toBeTruthy();
    fireEvent.keyDown(document.body, { key: 'c' });
    fireEvent.keyDown(document.body, { key: 'c' });
    fireEvent.keyDown(document.body, { key: 'i' });
    fireEvent.keyDown(document.body, { key: 'S' });
    expect(await screen.findByText('2')).toBeTruthy();
    expect([count('correct'), count('incorrect'), count('skipped')]).toEqual(['2', '1', '1']);
    fireEvent.keyDown(document.body, { key: 'z' });
    fireEvent.keyDown(document.body, { key: 'z' });
    await screen.findAllByText('0');
    expect([count('correct'), count('incorrect'), count('skipped')]).toEqual(['2', '0', '0']);
    fireEvent.keyDown(document.body, { key: ' ' });
    expect(timer.value.running).toBe(false);
    expect(await screen.findByRole('button', { name: 'Resume' })).toBeTruthy();
    // The phone reads what the page posted: paused focus, with the counts.
    await waitFor(() => expect(latestSnapshot).toMatchObject({ phase: 'focus', running: false, completionAtMs: null, attempts: { correct: 2, incorrect: 0, skipped: 0 } }), { timeout: 5000 });
  });

  it('leaves keys typed into a field alone', () => {
    const field = screen.getByLabelText('Add a task for today');
    fireEvent.keyDown(field, { key: 'c' });
    fireEvent.keyDown(field, { key: ' ' });
    expect(timer.value.attempts.correct).toBe(0);
    expect(timer.value.running).toBe(false);
  });

  it('shows a relayed phone action once, however often its event arrives', async () => {
    const deduper = new ActionDeduper();
    deduper.streamOpened();
    for (const event of [{ id: 1, action: 'correct' as const, at: 0 }, { id: 1, action: 'correct' as const, at: 0 }, { id: 2, action: 'target' as const, target: 12, at: 0 }]) {
      if (deduper.accept(event.id)) applyPipAction(event);
    }
    await waitFor(() => expect(count('correct')).toBe('1'));
    expect(screen.getByText('of 12 answered', { exact: false })).toBeTruthy();
  });
});
