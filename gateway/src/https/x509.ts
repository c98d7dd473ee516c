// The certificate library, set up once: @peculiar/x509 on Node's WebCrypto. Its dependency
// injection (tsyringe) needs the Reflect metadata polyfill loaded first. Every certificate here is
// ECDSA P-256 with SHA-256, which every browser and phone in use accepts.
import 'reflect-metadata';
import { webcrypto } from 'node:crypto';
import * as x509 from '@peculiar/x509';

x509.cryptoProvider.set(webcrypto as unknown as Crypto);

export { x509 };

export const KEY_ALGORITHM = { name: 'ECDSA', namedCurve: 'P-256' } as const;
export const SIGNING_ALGORITHM = { ...KEY_ALGORITHM, hash: 'SHA-256' } as const;

export function generateKeys(): Promise<CryptoKeyPair> {
  return webcrypto.subtle.generateKey(SIGNING_ALGORITHM, true, ['sign', 'verify']) as Promise<CryptoKeyPair>;
}

export async function privateKeyPem(key: CryptoKey): Promise<string> {
  const pkcs8 = await webcrypto.subtle.exportKey('pkcs8', key);
  return x509.PemConverter.encode(pkcs8, 'PRIVATE KEY');
}

export async function importPrivateKeyPem(pem: string): Promise<CryptoKey> {
  const [der] = x509.PemConverter.decode(pem);
  if (!der) throw new Error('no PRIVATE KEY block in the file');
  return webcrypto.subtle.importKey('pkcs8', der, KEY_ALGORITHM, false, ['sign']) as Promise<CryptoKey>;
}

/** A random positive serial number of 128 bits, as hex (RFC 5280: unique per issuer, at most 20 bytes). */
export function randomSerial(): string {
  const bytes = webcrypto.getRandomValues(new Uint8Array(16));
  bytes[0] = (bytes[0] ?? 0) & 0x7f;
  return Buffer.from(bytes).toString('hex');
}
