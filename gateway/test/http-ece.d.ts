// Types for the part of http_ece (Encrypted Content-Encoding, RFC 8188) the test receiver uses.
declare module 'http_ece' {
  import type { ECDH } from 'node:crypto';

  export interface DecryptParams {
    version: 'aes128gcm';
    /** The receiver's key pair; the sender's public key comes from the record header. */
    privateKey: ECDH;
    /** The subscription's 16-byte auth secret (a Buffer or URL-safe base64). */
    authSecret: Buffer | string;
  }

  export function decrypt(buffer: Buffer, params: DecryptParams): Buffer;

  const ece: { decrypt: typeof decrypt };
  export default ece;
}
