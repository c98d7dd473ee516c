// Settings in the group pipapk_settings: server_url defaults to loopback port 3000, is trimmed of
// a trailing slash on save and refused with a message when invalid; auto_start defaults to on.
// Both storage adapters keep them under the names the Android side reads.
import { describe, expect, it, vi } from 'vitest';
import { DEFAULT_SERVER_URL, isLoopbackServer, normalizeServerUrl } from './server-url.ts';
import { autoStartFromStored, loadSettings, saveAutoStart, savePairingCode, saveServerUrl } from './settings.ts';
import {
  localSettingsStorage,
  preferencesSettingsStorage,
  SETTINGS_GROUP,
  type KeyValueStore,
  type PreferencesPlugin,
} from './settings-storage.ts';

function memoryStore(): KeyValueStore & { entries: Map<string, string> } {
  const entries = new Map<string, string>();
  return {
    entries,
    getItem: (key) => entries.get(key) ?? null,
    setItem: (key, value) => void entries.set(key, value),
    removeItem: (key) => void entries.delete(key),
  };
}

describe('defaults', () => {
  it('uses the loopback server on port 3000 and auto start on when nothing is stored', async () => {
    expect(DEFAULT_SERVER_URL).toBe('http://127.0.0.1:3000');
    expect(SETTINGS_GROUP).toBe('pipapk_settings');
    expect(await loadSettings(localSettingsStorage(memoryStore()))).toEqual({
      serverUrl: DEFAULT_SERVER_URL,
      autoStart: true,
      pairingCode: null,
    });
  });

  it('lets a browser default to the server that served the page', async () => {
    const settings = await loadSettings(localSettingsStorage(memoryStore()), { serverUrl: 'http://192.168.1.20:3000' });
    expect(settings.serverUrl).toBe('http://192.168.1.20:3000');
  });

  it('reads auto_start as on unless it is stored as false', () => {
    expect(autoStartFromStored(null)).toBe(true);
    expect(autoStartFromStored('true')).toBe(true);
    expect(autoStartFromStored('false')).toBe(false);
  });
});

describe('saving the server URL', () => {
  it('trims a trailing slash (or several) on save', async () => {
    const store = memoryStore();
    const storage = localSettingsStorage(store);
    expect(await saveServerUrl(storage, 'http://192.168.1.20:3000/')).toEqual({
      ok: true,
      url: 'http://192.168.1.20:3000',
    });
    expect(store.entries.get('pipapk_settings.server_url')).toBe('http://192.168.1.20:3000');
    expect(await saveServerUrl(storage, '  https://study.example.org/hall//  ')).toEqual({
      ok: true,
      url: 'https://study.example.org/hall',
    });
    expect((await loadSettings(storage)).serverUrl).toBe('https://study.example.org/hall');
  });

  it('adds http:// to an address typed without it', () => {
    expect(normalizeServerUrl('192.168.1.20:3000')).toEqual({ ok: true, url: 'http://192.168.1.20:3000' });
  });

  it.each([
    [''],
    ['   '],
    ['ftp://192.168.1.20'],
    ['http://'],
    ['http://user:pw@192.168.1.20:3000'],
    ['http://192.168.1.20:3000/?x=1'],
    ['http://192.168.1.20:99999'],
    ['http://exa mple.com'],
  ])('refuses %j with a message and stores nothing', async (input) => {
    const store = memoryStore();
    const result = await saveServerUrl(localSettingsStorage(store), input);
    expect(result.ok).toBe(false);
    if (!result.ok) expect(result.message.length).toBeGreaterThan(10);
    expect(store.entries.size).toBe(0);
  });

  it('ignores an invalid stored address and falls back to the default', async () => {
    const store = memoryStore();
    store.setItem('pipapk_settings.server_url', 'not a url at all');
    expect((await loadSettings(localSettingsStorage(store))).serverUrl).toBe(DEFAULT_SERVER_URL);
  });
});

describe('auto start and pairing code', () => {
  it('stores auto_start as true or false', async () => {
    const store = memoryStore();
    const storage = localSettingsStorage(store);
    await saveAutoStart(storage, false);
    expect(store.entries.get('pipapk_settings.auto_start')).toBe('false');
    expect((await loadSettings(storage)).autoStart).toBe(false);
    await saveAutoStart(storage, true);
    expect((await loadSettings(storage)).autoStart).toBe(true);
  });

  it('stores a typed pairing code normalised, refuses a malformed one and clears with an empty one', async () => {
    const store = memoryStore();
    const storage = localSettingsStorage(store);
    expect(await savePairingCode(storage, 'k7m-2qd')).toEqual({ ok: true, code: 'K7M2QD' });
    expect((await loadSettings(storage)).pairingCode).toBe('K7M2QD');
    const refused = await savePairingCode(storage, 'K0O1IL');
    expect(refused.ok).toBe(false);
    expect((await loadSettings(storage)).pairingCode).toBe('K7M2QD');
    expect(await savePairingCode(storage, '')).toEqual({ ok: true, code: null });
    expect(store.entries.has('pipapk_settings.pairing_code')).toBe(false);
  });
});

describe('the Capacitor Preferences adapter', () => {
  it('configures the pipapk_settings group once, then reads and writes plain keys in it', async () => {
    const values = new Map<string, string>();
    const plugin: PreferencesPlugin = {
      configure: vi.fn(async () => {}),
      get: vi.fn(async ({ key }: { key: string }) => ({ value: values.get(key) ?? null })),
      set: vi.fn(async ({ key, value }: { key: string; value: string }) => void values.set(key, value)),
      remove: vi.fn(async ({ key }: { key: string }) => void values.delete(key)),
    };
    const storage = preferencesSettingsStorage(plugin);
    await saveServerUrl(storage, 'http://10.0.0.5:3000/');
    await saveAutoStart(storage, false);
    expect(await loadSettings(storage)).toEqual({
      serverUrl: 'http://10.0.0.5:3000',
      autoStart: false,
      pairingCode: null,
    });
    expect(plugin.configure).toHaveBeenCalledTimes(1);
    expect(plugin.configure).toHaveBeenCalledWith({ group: 'pipapk_settings' });
    expect([...values.keys()].sort()).toEqual(['auto_start', 'server_url']);
  });
});

describe('isLoopbackServer', () => {
  it.each([
    ['http://127.0.0.1:3000', true],
    ['http://127.4.5.6', true],
    ['http://localhost:3000', true],
    ['http://[::1]:3000', true],
    ['http://192.168.1.20:3000', false],
    ['https://study.example.org', false],
    ['http://127.0.0.1.example.org', false],
    ['nonsense', false],
  ])('%s is loopback: %s', (url, expected) => expect(isLoopbackServer(url)).toBe(expected));
});
