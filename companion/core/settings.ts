// The companion's settings, stored in the group pipapk_settings: server_url (loopback port 3000 by
// default, a trailing slash trimmed on save, an invalid address refused with a message), auto_start
// (on by default) and pairing_code (the focus page's code; a server run with PIP_PAIRING=off needs none).
import { normalizePairingCode } from './pairing-code.ts';
import { DEFAULT_SERVER_URL, normalizeServerUrl, type ServerUrlResult } from './server-url.ts';
import type { SettingsStorage } from './settings-storage.ts';

export const SETTING_KEYS = { serverUrl: 'server_url', autoStart: 'auto_start', pairingCode: 'pairing_code' } as const;

export interface CompanionSettings {
  serverUrl: string;
  autoStart: boolean;
  pairingCode: string | null;
}

export interface SettingsDefaults {
  /** The Android app's default is the loopback server; a browser uses the server that served the page. */
  serverUrl: string;
}

/** auto_start as stored: anything but "false" (including nothing stored yet) means on. */
export function autoStartFromStored(value: string | null): boolean {
  return value !== 'false';
}

export async function loadSettings(
  storage: SettingsStorage,
  defaults: SettingsDefaults = { serverUrl: DEFAULT_SERVER_URL },
): Promise<CompanionSettings> {
  const [storedUrl, storedAutoStart, storedCode] = await Promise.all([
    storage.get(SETTING_KEYS.serverUrl),
    storage.get(SETTING_KEYS.autoStart),
    storage.get(SETTING_KEYS.pairingCode),
  ]);
  // A value stored by an older or hand-edited install is checked like a typed one.
  const url = storedUrl === null ? undefined : normalizeServerUrl(storedUrl);
  return {
    serverUrl: url?.ok ? url.url : defaults.serverUrl,
    autoStart: autoStartFromStored(storedAutoStart),
    pairingCode: storedCode === null ? null : (normalizePairingCode(storedCode) ?? null),
  };
}

/** Saves a typed server address, normalised; an invalid one is refused and nothing is written. */
export async function saveServerUrl(storage: SettingsStorage, input: string): Promise<ServerUrlResult> {
  const result = normalizeServerUrl(input);
  if (result.ok) await storage.set(SETTING_KEYS.serverUrl, result.url);
  return result;
}

export async function saveAutoStart(storage: SettingsStorage, on: boolean): Promise<void> {
  await storage.set(SETTING_KEYS.autoStart, on ? 'true' : 'false');
}

export type PairingCodeResult = { ok: true; code: string | null } | { ok: false; message: string };

/** Saves a typed pairing code (or clears it with an empty one); a malformed code is refused. */
export async function savePairingCode(storage: SettingsStorage, input: string): Promise<PairingCodeResult> {
  if (input.trim() === '') {
    await storage.remove(SETTING_KEYS.pairingCode);
    return { ok: true, code: null };
  }
  const code = normalizePairingCode(input);
  if (!code) return { ok: false, message: 'A pairing code has 6 letters and digits, as the focus page shows it.' };
  await storage.set(SETTING_KEYS.pairingCode, code);
  return { ok: true, code };
}
