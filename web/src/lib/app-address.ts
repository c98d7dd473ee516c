// Where other people and devices open this app: the address that invite links, the phone-pairing
// QR code and the return address of auth mail carry. The server decides it (`app_url` of
// GET /api/client-config: PUBLIC_URL, else its LAN address, over https when it serves it). The
// page's own address is no substitute when it is loopback: a teacher at http://127.0.0.1:3000 who
// hands that out sends each student to the student's own machine.
import { clientConfig, type ClientConfig } from './client-config.ts';

/** Whether a URL's host is this computer only, so another device cannot open it. */
export function isLoopbackUrl(url: string): boolean {
  try {
    const host = new URL(url).hostname;
    return host === 'localhost' || host === '[::1]' || host === '::1' || /^127\./.test(host);
  } catch {
    return true;
  }
}

/**
 * The students' address, without a trailing slash, from what the server said (`config`, null when
 * it could not be read) and the page's origin: the server's `app_url`; where the server named none
 * (only this computer reaches it), the page's own address, the only one there is; where the server's
 * answer is unknown (offline, or remembered from an older server), the page's own address unless it
 * is loopback; else null.
 */
export function studentsAddress(config: Pick<ClientConfig, 'app_url'> | null, pageOrigin: string): string | null {
  const url = config?.app_url;
  if (typeof url === 'string' && /^https?:\/\/[^/]/.test(url)) return url.replace(/\/+$/, '');
  if (config && url === null) return pageOrigin;
  return isLoopbackUrl(pageOrigin) ? null : pageOrigin;
}

/** The students' address for this page (see studentsAddress). */
export async function appAddress(): Promise<string | null> {
  const config = await clientConfig().catch(() => null);
  return studentsAddress(config, location.origin);
}
