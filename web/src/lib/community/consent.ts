// Whether this account agreed to take part in the community, remembered on this device so the
// focus screen can decide to report presence without loading anything or asking the server.
// Kept free of imports: the shell reads it.
const CONSENT_KEY = 'studyhall-community-consent';
export const CONSENT_EVENT = 'studyhall:community-consent';

export function rememberedConsent(userId: string): boolean {
  try {
    return localStorage.getItem(`${CONSENT_KEY}:${userId}`) === 'true';
  } catch {
    return false;
  }
}

export function rememberConsent(userId: string, consent: boolean): void {
  try {
    const before = rememberedConsent(userId);
    localStorage.setItem(`${CONSENT_KEY}:${userId}`, String(consent));
    if (before !== consent) window.dispatchEvent(new Event(CONSENT_EVENT));
  } catch {
    // Storage refused (a private window): presence waits for the next read of the enrollment.
  }
}
