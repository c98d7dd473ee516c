// Pairing a phone with a focus page (PIP_PAIRING=on, docs/api.md#pairing): the code's alphabet and
// length, how a typed code is read, the channel token's form and the headers that carry them.
// Plain constants and functions, no zod: the focus page needs them for its first paint.

/** 31 letters and digits that cannot be mistaken for each other (no 0/O, 1/I/L). */
export const PAIRING_CODE_ALPHABET = 'ABCDEFGHJKMNPQRSTUVWXYZ23456789';
export const PAIRING_CODE_LENGTH = 6;
/** The page's secret channel token, as the server hands it out and takes it back. */
export const CHANNEL_TOKEN_PATTERN = /^[A-Za-z0-9_-]{16,64}$/;
/** A phone names the page's code in this header on the /api/pip routes. */
export const PIP_CODE_HEADER = 'x-pip-code';
/** A paired page names its channel token in this header on POST /__pip/state. */
export const PIP_CHANNEL_HEADER = 'x-pip-channel';

/** Whether a value is a code exactly as the server issues it. */
export function isPairingCode(value: unknown): value is string {
  return (
    typeof value === 'string' &&
    value.length === PAIRING_CODE_LENGTH &&
    [...value].every((char) => PAIRING_CODE_ALPHABET.includes(char))
  );
}

/** A code as typed ("k7m-2qd", "K7M 2QD") -> "K7M2QD"; undefined when it cannot be one. */
export function normalizePairingCode(raw: string | undefined): string | undefined {
  if (raw === undefined) return undefined;
  const code = raw.replace(/[\s-]/g, '').toUpperCase();
  return isPairingCode(code) ? code : undefined;
}
