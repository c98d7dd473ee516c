// Where settings live: a small port with two adapters. The Android app stores them with Capacitor
// Preferences in the group pipapk_settings (an Android SharedPreferences file of that name, which
// the boot receiver reads too); a browser stores them in localStorage under the same names, the
// way Capacitor Preferences' own web implementation prefixes them ("pipapk_settings.server_url").

export const SETTINGS_GROUP = 'pipapk_settings';

export interface SettingsStorage {
  get(key: string): Promise<string | null>;
  set(key: string, value: string): Promise<void>;
  remove(key: string): Promise<void>;
}

/** The part of the Web Storage API the browser adapter needs (window.localStorage has it). */
export interface KeyValueStore {
  getItem(key: string): string | null;
  setItem(key: string, value: string): void;
  removeItem(key: string): void;
}

export function localSettingsStorage(store: KeyValueStore, group = SETTINGS_GROUP): SettingsStorage {
  const name = (key: string) => `${group}.${key}`;
  return {
    get: async (key) => store.getItem(name(key)),
    set: async (key, value) => store.setItem(name(key), value),
    remove: async (key) => store.removeItem(name(key)),
  };
}

/** The part of @capacitor/preferences' plugin the Android adapter needs (passed in, not imported). */
export interface PreferencesPlugin {
  configure(options: { group: string }): Promise<void>;
  get(options: { key: string }): Promise<{ value: string | null }>;
  set(options: { key: string; value: string }): Promise<void>;
  remove(options: { key: string }): Promise<void>;
}

export function preferencesSettingsStorage(preferences: PreferencesPlugin, group = SETTINGS_GROUP): SettingsStorage {
  let configured: Promise<void> | undefined;
  const ready = () => (configured ??= preferences.configure({ group }));
  return {
    get: async (key) => (await ready(), (await preferences.get({ key })).value),
    set: async (key, value) => (await ready(), preferences.set({ key, value })),
    remove: async (key) => (await ready(), preferences.remove({ key })),
  };
}
