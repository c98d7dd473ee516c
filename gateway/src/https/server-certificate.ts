// The server's own certificate, signed by the local CA for the names of certificate-names.ts. Valid
// for 397 days: Apple's devices refuse a server certificate valid for longer than 825 days, and
// browsers cap publicly trusted ones at 398. A new key comes with every certificate.
import { canonicalIp, type CertificateNames } from './certificate-names.ts';
import type { LocalCa } from './local-ca.ts';
import { generateKeys, privateKeyPem, randomSerial, SIGNING_ALGORITHM, x509 } from './x509.ts';

export const SERVER_CERT_LIFETIME_MS = 397 * 24 * 60 * 60 * 1000;

export interface ServerCertificate {
  certPem: string;
  keyPem: string;
  names: CertificateNames;
  notAfter: Date;
}

export async function issueServerCertificate(
  ca: LocalCa,
  names: CertificateNames,
  now: Date = new Date(),
): Promise<ServerCertificate> {
  const keys = await generateKeys();
  const notAfter = new Date(now.getTime() + SERVER_CERT_LIFETIME_MS);
  const certificate = await x509.X509CertificateGenerator.create({
    serialNumber: randomSerial(),
    subject: [{ CN: [names.dns.find((name) => name.endsWith('.local')) ?? 'localhost'] }, { O: ['studyhall'] }],
    issuer: ca.certificate.subject,
    notBefore: new Date(now.getTime() - 60 * 60 * 1000),
    notAfter,
    signingAlgorithm: SIGNING_ALGORITHM,
    publicKey: keys.publicKey,
    signingKey: ca.signingKey,
    extensions: [
      new x509.BasicConstraintsExtension(false, undefined, true),
      new x509.KeyUsagesExtension(x509.KeyUsageFlags.digitalSignature, true),
      new x509.ExtendedKeyUsageExtension([x509.ExtendedKeyUsage.serverAuth]),
      new x509.SubjectAlternativeNameExtension([
        ...names.dns.map((value) => ({ type: 'dns' as const, value })),
        ...names.ips.map((value) => ({ type: 'ip' as const, value })),
      ]),
      await x509.AuthorityKeyIdentifierExtension.create(ca.certificate),
      await x509.SubjectKeyIdentifierExtension.create(keys.publicKey),
    ],
  });
  return { certPem: certificate.toString('pem'), keyPem: await privateKeyPem(keys.privateKey), names, notAfter };
}

/** The DNS names and IP addresses a certificate's subjectAltName lists. */
export function namesIn(certificate: x509.X509Certificate): CertificateNames {
  const extension = certificate.getExtension(x509.SubjectAlternativeNameExtension);
  const entries = extension?.names.items ?? [];
  return {
    dns: entries
      .filter((entry) => entry.type === 'dns')
      .map((entry) => entry.value.toLowerCase())
      .sort(),
    ips: entries
      .filter((entry) => entry.type === 'ip')
      .map((entry) => canonicalIp(entry.value) ?? entry.value)
      .sort(),
  };
}
