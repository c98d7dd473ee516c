// The pairing code a focus page shows when the server runs with PIP_PAIRING=on: 6 characters from
// letters and digits that cannot be mistaken for each other (no 0/O, 1/I/L).

export const PAIRING_CODE_ALPHABET = 'ABCDEFGHJKMNPQRSTUVWXYZ23456789';
export const PAIRING_CODE_LENGTH = 6;

/** "k7m-2qd" or "K7M 2QD" -> "K7M2QD"; undefined when it cannot be a code. */
export function normalizePairingCode(input: string): string | undefined {
  const code = input.replace(/[\s-]/g, '').toUpperCase();
  if (code.length !== PAIRING_CODE_LENGTH) return undefined;
  for (const char of code) if (!PAIRING_CODE_ALPHABET.includes(char)) return undefined;
  return code;
}

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
