// @vitest-environment happy-dom
// The focus screen in a DOM: the keyboard shortcuts, the counters' accessible names, a relayed
// action from the phone changing the number on screen once per event id, and the phone remote's
// panel. The page's origin is a real gateway with PIP_PAIRING=on (in its own process: happy-dom
// replaces the URL class the gateway needs); the page pairs with it, shows the code, and a phone
// with that code reads the snapshot the page posted.
import { cleanup, fireEvent, render, screen, waitFor, within } from '@testing-library/preact';
import { EventSource as UndiciEventSource } from 'undici';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { spawnTestGateway, type SpawnedGateway } from '#tools/testing/spawn-test-gateway.ts';
import { ActionDeduper } from '../../lib/relay.ts';
import { idleTimer } from '../../lib/timer.ts';
import { applyPipAction, pairing, snapshotsSettled, startPhoneLink, stopPhoneLink } from '../../state/focus.ts';
import { timer } from '../../state/signals.ts';
import FocusPage from './FocusPage.tsx';

let gateway: SpawnedGateway;

/** The browser's EventSource resolves a relative URL against the page; undici's needs it whole. */
class PageEventSource extends UndiciEventSource {
  constructor(url: string) {
    super(new URL(url, location.href).href);
  }
}

beforeAll(async () => {
  gateway = await spawnTestGateway({ pairing: true });
  (window as unknown as { happyDOM: { setURL(url: string): void } }).happyDOM.setURL(`${gateway.url}/focus`);
  Object.assign(globalThis, { EventSource: PageEventSource });
  startPhoneLink();
  await waitFor(() => expect(pairing.value).toMatchObject({ status: 'on', stream: 'live' }), { timeout: 10_000 });
}, 30_000);
afterAll(async () => {
  // Let the last snapshot posts land before the server goes away.
  await snapshotsSettled();
  stopPhoneLink();
  await gateway.close();
});

function pairingCode(): string {
  const view = pairing.value;
  if (view.status !== 'on') throw new Error(`not paired: ${view.status}`);
  return view.code;
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
    // A phone with the page's code reads what the page posted: paused focus, with the counts.
    const phoneReads = async () =>
      (await fetch(`${gateway.url}/api/pip/state`, { headers: { 'x-pip-code': pairingCode() } })).json();
    await waitFor(
      async () =>
        expect(await phoneReads()).toMatchObject({
          phase: 'focus',
          running: false,
          completionAtMs: null,
          attempts: { correct: 2, incorrect: 0, skipped: 0 },
        }),
      { timeout: 5000 },
    );
    // Without the code the phone reads nothing.
    expect((await fetch(`${gateway.url}/api/pip/state`)).status).toBe(401);
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
    for (const event of [
      { id: 1, action: 'correct' as const, at: 0 },
      { id: 1, action: 'correct' as const, at: 0 },
      { id: 2, action: 'target' as const, target: 12, at: 0 },
    ]) {
      if (deduper.accept(event.id)) applyPipAction(event);
    }
    await waitFor(() => expect(count('correct')).toBe('1'));
    expect(screen.getByText('of 12 answered', { exact: false })).toBeTruthy();
  });

  it('starts, pauses and resumes from the phone, each only from the state it names', async () => {
    applyPipAction({ id: 10, action: 'resume', at: 0 });
    applyPipAction({ id: 11, action: 'pause', at: 0 });
    expect(timer.value.phase).toBe('idle');
    applyPipAction({ id: 12, action: 'start', at: 0 });
    expect(timer.value).toMatchObject({ phase: 'focus', running: true });
    expect(await screen.findByRole('button', { name: 'Pause' })).toBeTruthy();
    const completion = timer.value.completionAtMs;
    applyPipAction({ id: 13, action: 'start', at: 0 });
    applyPipAction({ id: 14, action: 'resume', at: 0 });
    expect(timer.value.completionAtMs).toBe(completion);
    applyPipAction({ id: 15, action: 'pause', at: 0 });
    expect(timer.value).toMatchObject({ phase: 'focus', running: false, completionAtMs: null });
    expect(await screen.findByRole('button', { name: 'Resume' })).toBeTruthy();
    applyPipAction({ id: 16, action: 'start', at: 0 });
    expect(timer.value.running).toBe(false);
    applyPipAction({ id: 17, action: 'resume', at: 0 });
    expect(timer.value.running).toBe(true);
  });

  it('finishes from the phone; under a minute the answers stay on the counters for the next session, and the page says so', async () => {
    applyPipAction({ id: 20, action: 'finish', at: 0 });
    expect(timer.value.phase).toBe('idle'); // nothing started: nothing to finish
    applyPipAction({ id: 21, action: 'start', at: 0 });
    applyPipAction({ id: 22, action: 'correct', at: 0 });
    applyPipAction({ id: 23, action: 'correct', at: 0 });
    applyPipAction({ id: 24, action: 'skip', at: 0 });
    applyPipAction({ id: 25, action: 'finish', at: 0 });
    const notice = await screen.findByText(/Not saved as a session: a session needs at least a minute of focus/);
    expect(notice.textContent).toContain('Your 3 answers stay on the counters and are saved with your next session.');
    expect(timer.value).toMatchObject({ phase: 'idle', running: false, startedAtMs: null });
    expect(timer.value.attempts).toEqual({ correct: 2, incorrect: 0, skipped: 1 });
    expect([count('correct'), count('incorrect'), count('skipped')]).toEqual(['2', '0', '1']);
    // The next session starts with them.
    fireEvent.click(screen.getByRole('button', { name: 'Start' }));
    expect(timer.value.attempts).toEqual({ correct: 2, incorrect: 0, skipped: 1 });
    await waitFor(() => expect(screen.queryByText(/stay on the counters/)).toBeNull());
    // Finished short again, the student may take them back.
    fireEvent.click(screen.getByRole('button', { name: 'Finish' }));
    fireEvent.click(await screen.findByRole('button', { name: 'Clear answers' }));
    expect(timer.value.attempts).toEqual({ correct: 0, incorrect: 0, skipped: 0 });
    await waitFor(() => expect(screen.queryByText(/stay on the counters/)).toBeNull());
  });

  it('opens the phone remote panel from its button, shows the code spelled out, and closes with Escape back on the button', async () => {
    const toggle = screen.getByRole('button', { name: 'Phone remote' });
    expect(toggle.getAttribute('aria-expanded')).toBe('false');
    fireEvent.click(toggle);
    const panel = await screen.findByRole('region', { name: 'Phone remote' });
    const code = pairingCode();
    expect(within(panel).getByText(`${code.slice(0, 3)} ${code.slice(3)}`)).toBeTruthy();
    expect(within(panel).getByText([...code].join(' '))).toBeTruthy();
    // The earlier test read the state as a phone would: the page heard that a phone follows it.
    expect(within(panel).getByText('Phone connected')).toBeTruthy();
    // The test gateway listens on loopback only: the panel says a phone cannot reach it.
    await within(panel).findByText('only listens on this computer', { exact: false });
    fireEvent.keyDown(document.body, { key: 'Escape' });
    await waitFor(() => expect(screen.queryByRole('region', { name: 'Phone remote' })).toBeNull());
    expect(document.activeElement).toBe(toggle);
  });
});
