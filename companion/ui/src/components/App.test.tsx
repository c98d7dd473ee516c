// @vitest-environment happy-dom
// The remote's screens in happy-dom, talking to a real gateway on loopback (in a process of its own)
// through the browser platform (localStorage, fetch, the page's own origin): what the student sees
// and can do.
import { cleanup, configure, fireEvent, render, screen, waitFor } from '@testing-library/preact';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { spawnTestGateway, type SpawnedGateway } from '#tools/testing/spawn-test-gateway.ts';
import { openSse } from '#gateway/test/sse-client.ts';
import { webPlatform } from '../platform/web.ts';
import { createCompanion, type Companion } from '../state/companion.ts';
import { App } from './App.tsx';

// Each answer crosses a real socket to another process; on a busy machine that can take over a second.
configure({ asyncUtilTimeout: 5_000 });

let gateway: SpawnedGateway;
let baseUrl: string;
let companion: Companion | undefined;

const snapshot = {
  phase: 'focus',
  running: true,
  remainingMs: 900_000,
  completionAtMs: Date.now() + 900_000,
  subject: { id: 'chem', name: 'Chemistry' },
  task: { id: 't1', title: 'Acids and bases' },
  attempts: { correct: 4, incorrect: 2, skipped: 1 },
  target: 25,
};

async function postSnapshot(body: object, headers: Record<string, string> = {}): Promise<void> {
  const response = await fetch(`${baseUrl}/__pip/state`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', ...headers },
    body: JSON.stringify(body),
  });
  expect(response.status).toBe(200);
}

/** Puts the window at `server`/companion/, as if the remote had been loaded from there (fetch is then same-origin). */
function loadFrom(server: string): void {
  (window as unknown as { happyDOM: { setURL(url: string): void } }).happyDOM.setURL(`${server}/companion/`);
}

async function openRemote(server: string): Promise<Companion> {
  loadFrom(server);
  const created = createCompanion(webPlatform());
  await created.start();
  render(<App companion={created} />);
  companion = created;
  return created;
}

beforeAll(async () => {
  gateway = await spawnTestGateway();
  baseUrl = gateway.url;
  loadFrom(baseUrl);
  await postSnapshot(snapshot);
}, 60_000);
afterEach(() => {
  companion?.stop();
  companion = undefined;
  cleanup();
  window.localStorage.clear();
});
afterAll(() => gateway.close());

describe('the remote', () => {
  it('shows the phase, the time from completionAtMs, the subject, the task and the counters', async () => {
    await openRemote(baseUrl);
    await screen.findByText('Chemistry');
    expect(screen.getByText('Focus')).toBeTruthy();
    expect(screen.getByText('Acids and bases')).toBeTruthy();
    const time = screen.getByRole('timer');
    expect(time.textContent).toMatch(/^1[45]:\d\d$/);
    expect(document.getElementById('count-correct')?.textContent).toBe('4');
    expect(document.getElementById('count-incorrect')?.textContent).toBe('2');
    expect(document.getElementById('count-skip')?.textContent).toBe('1');
    expect(document.getElementById('target-value')?.textContent).toBe('25');
  });

  it('names its buttons Correct, Incorrect, Skip, Pause, Finish, Undo and Target', async () => {
    await openRemote(baseUrl);
    await screen.findByText('Chemistry');
    for (const name of ['Correct', 'Incorrect', 'Skip', 'Pause', 'Finish', 'Undo', 'Target'])
      expect(screen.getByRole('button', { name })).toBeTruthy();
  });

  it('finishes the session: the focus page receives `finish`', async () => {
    await openRemote(baseUrl);
    await screen.findByText('Chemistry');
    const page = await openSse(`${baseUrl}/__pip/events`);
    try {
      await page.next('hello');
      fireEvent.click(screen.getByRole('button', { name: 'Finish' }));
      await screen.findByText('Sent to the focus page.');
      expect((await page.next('pip-action')).data).toMatchObject({ action: 'finish' });
    } finally {
      page.close();
    }
  });

  it('says "no focus page open" when the server had nobody to deliver to, and "sent" when it had', async () => {
    await openRemote(baseUrl);
    await screen.findByText('Chemistry');
    fireEvent.click(screen.getByRole('button', { name: 'Skip' }));
    await screen.findByText('No focus page open: nothing changed.');
    const page = await openSse(`${baseUrl}/__pip/events`);
    try {
      await page.next('hello');
      fireEvent.click(screen.getByRole('button', { name: 'Correct' }));
      await screen.findByText('Sent to the focus page.');
      expect((await page.next('pip-action')).data).toMatchObject({ action: 'correct' });
    } finally {
      page.close();
    }
  });

  it('says what to do when no focus page has reported yet', { timeout: 60_000 }, async () => {
    const fresh = await spawnTestGateway();
    try {
      await openRemote(fresh.url);
      await screen.findByText(/No focus page has reported yet/);
      expect(screen.getByRole('timer').textContent).toBe('--:--');
    } finally {
      companion?.stop();
      await fresh.close();
    }
  });
});

describe('an idle or complete session', () => {
  let own: SpawnedGateway;
  beforeAll(async () => {
    own = await spawnTestGateway();
  }, 60_000);
  afterAll(() => own.close());

  async function showing(body: object): Promise<void> {
    loadFrom(own.url);
    const response = await fetch(`${own.url}/__pip/state`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify(body),
    });
    expect(response.status).toBe(200);
    await openRemote(own.url);
  }

  const idle = { ...snapshot, phase: 'idle', running: false, remainingMs: 0, completionAtMs: null };
  const button = (name: string) => screen.getByRole('button', { name }) as HTMLButtonElement;

  it('says what the phone can do, with Start working and nothing to finish', async () => {
    await showing({ ...idle, complete: false });
    await screen.findByText(/This phone starts, pauses, resumes and finishes it, and counts your answers\./);
    expect(screen.getByText('No session')).toBeTruthy();
    expect(screen.queryByText(/Start a session on the focus page/)).toBeNull();
    await waitFor(() => expect(button('Start').disabled).toBe(false));
    expect(button('Finish').disabled).toBe(true);
  });

  it('offers Finish, and no Start, for a session whose focus phases are all over', async () => {
    await showing({ ...idle, complete: true });
    await screen.findByText('Session complete');
    expect(screen.getByText(/Finish saves the session on the focus page/)).toBeTruthy();
    await waitFor(() => expect(button('Finish').disabled).toBe(false));
    expect(button('Start').disabled).toBe(true);
  });
});

describe('the settings sheet', () => {
  async function openSettings() {
    await openRemote(baseUrl);
    await screen.findByText('Chemistry');
    fireEvent.click(screen.getByRole('button', { name: 'Settings' }));
    return (await screen.findByRole('textbox', { name: 'Server' })) as HTMLInputElement;
  }

  it('shows the server that served the page and tests the connection to it', async () => {
    const field = await openSettings();
    expect(field.value).toBe(baseUrl);
    fireEvent.click(screen.getByRole('button', { name: 'Test connection' }));
    await screen.findByText(/^Connected in \d+ ms: a session is running\.$/);
  });

  it('refuses an invalid address under the field, and another server with the reason', async () => {
    const field = await openSettings();
    fireEvent.input(field, { target: { value: 'not a server' } });
    fireEvent.click(screen.getByRole('button', { name: 'Save' }));
    expect((await screen.findByRole('alert')).textContent).toMatch(/is not a web address/);
    expect(field.getAttribute('aria-invalid')).toBe('true');
    fireEvent.input(field, { target: { value: 'http://192.168.1.20:3000/' } });
    fireEvent.click(screen.getByRole('button', { name: 'Save' }));
    await waitFor(() =>
      expect(screen.getByRole('alert').textContent).toMatch(/only reach the server it was opened from/),
    );
    expect(window.localStorage.getItem('pipapk_settings.server_url')).toBeNull();
  });

  it('saves the server with its trailing slash trimmed', async () => {
    const field = await openSettings();
    fireEvent.input(field, { target: { value: `${baseUrl}/` } });
    fireEvent.click(screen.getByRole('button', { name: 'Save' }));
    await waitFor(() => expect(window.localStorage.getItem('pipapk_settings.server_url')).toBe(baseUrl));
  });

  it('has auto start on by default and stores it off when switched', async () => {
    await openSettings();
    const toggle = screen.getByRole('switch', { name: /Start with the phone/ }) as HTMLInputElement;
    expect(toggle.checked).toBe(true);
    fireEvent.click(toggle);
    await waitFor(() => expect(window.localStorage.getItem('pipapk_settings.auto_start')).toBe('false'));
  });
});

describe('pairing', () => {
  let paired: SpawnedGateway;
  let pairedUrl: string;
  let code: string;

  beforeAll(async () => {
    paired = await spawnTestGateway({ pairing: true });
    pairedUrl = paired.url;
    loadFrom(pairedUrl);
    const pairing = await (
      await fetch(`${pairedUrl}/__pip/pair`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: '{}',
      })
    ).json();
    code = pairing.code;
    await fetch(`${pairedUrl}/__pip/state`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'x-pip-channel': pairing.channel },
      body: JSON.stringify({ ...snapshot, subject: { id: 'geo', name: 'Geography' } }),
    });
  }, 60_000);
  afterAll(() => paired.close());

  it('asks for the code, says when it is wrong, and shows the timer with the right one', async () => {
    await openRemote(pairedUrl);
    await screen.findByRole('heading', { name: 'Pair with your focus page' });
    expect((screen.getByRole('button', { name: 'Correct' }) as HTMLButtonElement).disabled).toBe(true);
    const input = screen.getByRole('textbox', { name: 'Pairing code' });
    // The hint is not itself a code that could be mistaken for the one to type.
    expect((input as HTMLInputElement).placeholder).not.toMatch(/^[A-Z0-9]{3} ?[A-Z0-9]{3}$/i);
    expect((input as HTMLInputElement).placeholder).toBe('6 characters');
    fireEvent.input(input, { target: { value: 'ZZZ ZZZ' } });
    fireEvent.click(screen.getByRole('button', { name: 'Pair' }));
    await screen.findByText(/No focus page shows ZZZ ZZZ now/);
    // What she typed stays, marked wrong and focused, with the reason as its description.
    const wrong = screen.getByRole('textbox', { name: 'Pairing code' }) as HTMLInputElement;
    expect(wrong.value).toBe('ZZZ ZZZ');
    expect(wrong.getAttribute('aria-invalid')).toBe('true');
    await waitFor(() => expect(document.activeElement).toBe(wrong));
    expect(document.getElementById(wrong.getAttribute('aria-describedby') ?? '')?.textContent).toMatch(
      /Check the code on the Focus page/,
    );
    fireEvent.input(screen.getByRole('textbox', { name: 'Pairing code' }), { target: { value: code.toLowerCase() } });
    fireEvent.click(screen.getByRole('button', { name: 'Pair' }));
    await screen.findByText('Geography');
    expect(window.localStorage.getItem('pipapk_settings.pairing_code')).toBe(code);
  });
});
