// The server address the companion talks to: checked and normalised when the student saves it.

export const DEFAULT_SERVER_URL = 'http://127.0.0.1:3000';

export type ServerUrlResult = { ok: true; url: string } | { ok: false; message: string };

/**
 * Accepts what a student types: "192.168.1.20:3000" gets http:// in front, a trailing slash is
 * trimmed. Refuses anything that is not a plain http(s) address of a server.
 */
export function normalizeServerUrl(input: string): ServerUrlResult {
  const typed = input.trim();
  if (typed === '')
    return { ok: false, message: 'Enter the address of the studyhall server, for example http://192.168.1.20:3000.' };
  const withScheme = /^[a-z][a-z0-9+.-]*:\/\//i.test(typed) ? typed : `http://${typed}`;
  let url: URL;
  try {
    url = new URL(withScheme);
  } catch {
    return { ok: false, message: `"${typed}" is not a web address. Use the form http://192.168.1.20:3000.` };
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') {
    return { ok: false, message: 'The server address must start with http:// or https://.' };
  }
  if (url.username || url.password)
    return { ok: false, message: 'The server address must not contain a user name or password.' };
  if (url.search || url.hash) return { ok: false, message: 'The server address must not contain ? or #.' };
  if (!url.hostname) return { ok: false, message: 'The server address needs a host name or IP address.' };
  return { ok: true, url: `${url.origin}${url.pathname}`.replace(/\/+$/, '') };
}

/** Loopback: the server runs on this device (127.0.0.0/8, ::1, localhost). */
export function isLoopbackServer(serverUrl: string): boolean {
  let hostname: string;
  try {
    hostname = new URL(serverUrl).hostname.toLowerCase();
  } catch {
    return false;
  }
  return (
    hostname === 'localhost' ||
    hostname.endsWith('.localhost') ||
    hostname === '[::1]' ||
    /^127(\.\d{1,3}){3}$/.test(hostname)
  );
}
