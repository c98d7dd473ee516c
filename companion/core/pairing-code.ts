// The pairing code a focus page shows (pairing is on unless the server runs with PIP_PAIRING=off): 6 characters from
// letters and digits that cannot be mistaken for each other (no 0/O, 1/I/L). What a code is, and
// how a typed one is read, is the contract in contracts/pip-pairing.ts, the server's own rule.
import { normalizePairingCode } from '#contracts/pip-pairing.ts';

export { normalizePairingCode, PAIRING_CODE_ALPHABET, PAIRING_CODE_LENGTH } from '#contracts/pip-pairing.ts';

/** "K7M2QD" -> "K7M 2QD", easier to read off a screen. */
export function formatPairingCode(code: string): string {
  return `${code.slice(0, 3)} ${code.slice(3)}`;
}

/** The focus page's QR code opens /companion/#code=K7M2QD; this reads the code from that hash. */
export function pairingCodeFromHash(hash: string): string | undefined {
  const params = new URLSearchParams(hash.replace(/^#/, ''));
  const raw = params.get('code');
  return raw === null ? undefined : normalizePairingCode(raw);
}
