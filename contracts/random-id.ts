// Ids made on a device (a subject, a task, a study session) before the backend ever sees them: UUID
// version 4 (RFC 9562) from crypto.getRandomValues. Not crypto.randomUUID, which browsers give only
// to secure contexts (https, localhost): a student who opens the server at its plain-HTTP LAN
// address has no randomUUID, and every save that needs an id would throw. getRandomValues is
// there in every context, and in Node.

const HEX = Array.from({ length: 256 }, (_, byte) => byte.toString(16).padStart(2, '0'));

/** A random UUID (version 4, RFC 9562 variant), lower case: what the database's uuid columns take. */
export function randomUuid(): string {
  const bytes = globalThis.crypto.getRandomValues(new Uint8Array(16));
  // Version 4 in the high nibble of byte 6; the variant bits 10 in the two high bits of byte 8.
  bytes[6] = (bytes[6]! & 0x0f) | 0x40;
  bytes[8] = (bytes[8]! & 0x3f) | 0x80;
  const hex = Array.from(bytes, (byte) => HEX[byte]!).join('');
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-${hex.slice(12, 16)}-${hex.slice(16, 20)}-${hex.slice(20)}`;
}
