/**
 * `startBroker({ tls: 'self-signed' })` / `kafkalite serve --tls self-signed`: a throw-away CA and a
 * server certificate it signs, made at start, so a test can connect over SSL or SASL_SSL with no
 * openssl step; the CA's PEM is handed back for the client's trust store, and on request a client
 * certificate for mutual TLS (its subject becomes the principal through Kafka's default
 * `ssl.principal.mapping.rules`, e.g. `User:CN=alice`).
 *
 * The X.509 structures come from node-forge (certificate fields and extensions by name, no
 * hand-written ASN.1); the keys are RSA-2048 made by Node's own crypto on the thread pool, in
 * parallel, and every signature is Node's native RSA-SHA256 over forge's TBSCertificate, because
 * forge's pure-JavaScript RSA costs hundreds of milliseconds a signature. node-forge is loaded
 * only when a self-signed setup is asked for.
 */
import { generateKeyPair, randomBytes, sign } from 'node:crypto';
import { isIP } from 'node:net';
import { promisify } from 'node:util';
import type * as Forge from 'node-forge';

export interface SelfSignedTlsOptions {
  /** Names and addresses the server certificate is valid for (subjectAltName), besides localhost and 127.0.0.1. */
  hosts?: readonly string[];
  /** Also make a client certificate with this common name (mutual TLS). */
  clientCommonName?: string;
  /** Validity in days (default 30). */
  days?: number;
}

export interface SelfSignedTls {
  /** The CA certificate (PEM): the trust store of clients and, for mutual TLS, of the broker. */
  caPem: string;
  serverCertPem: string;
  /** PKCS#8 PEM, the form Kafka's PEM key stores take (`ssl.keystore.key`). */
  serverKeyPem: string;
  client?: { certPem: string; keyPem: string; /** The principal the broker derives from it. */ principal: string };
}

const generateKeyPairAsync = promisify(generateKeyPair);

interface KeyPair {
  privatePem: string;
  publicPem: string;
}

async function rsaKeyPair(): Promise<KeyPair> {
  const { privateKey, publicKey } = await generateKeyPairAsync('rsa', {
    modulusLength: 2048,
    publicKeyEncoding: { type: 'spki', format: 'pem' },
    privateKeyEncoding: { type: 'pkcs8', format: 'pem' },
  });
  return { privatePem: privateKey, publicPem: publicKey };
}

let forgeModule: Promise<typeof Forge> | undefined;
function loadForge(): Promise<typeof Forge> {
  forgeModule ??= import('node-forge').then((m) => ('default' in m ? (m.default as typeof Forge) : m));
  return forgeModule;
}

/**
 * Signs `cert` with `issuerKeyPem` natively. forge's `certificate.sign(key, md)` builds the
 * TBSCertificate (`cert.tbsCertificate`), then asks `key.sign(md)` for the signature bytes: this
 * key answers with Node's RSA-SHA256 signature of that TBSCertificate's DER bytes.
 */
function signNatively(forge: typeof Forge, cert: Forge.pki.Certificate, issuerKeyPem: string): void {
  const signer = {
    sign: (): string => {
      const tbs = Buffer.from(forge.asn1.toDer(cert.tbsCertificate).getBytes(), 'binary');
      return sign('sha256', tbs, issuerKeyPem).toString('binary');
    },
  };
  cert.sign(signer as unknown as Forge.pki.rsa.PrivateKey, forge.md.sha256.create());
}

function newCertificate(forge: typeof Forge, publicPem: string, days: number): Forge.pki.Certificate {
  const cert = forge.pki.createCertificate();
  cert.publicKey = forge.pki.publicKeyFromPem(publicPem);
  // a positive 16-byte serial (RFC 5280: at most 20 octets, non-negative)
  cert.serialNumber = `01${randomBytes(15).toString('hex')}`;
  const now = Date.now();
  cert.validity.notBefore = new Date(now - 60_000);
  cert.validity.notAfter = new Date(now + days * 86_400_000);
  return cert;
}

export async function makeSelfSignedTls(options: SelfSignedTlsOptions = {}): Promise<SelfSignedTls> {
  const days = options.days ?? 30;
  const [forge, caKeys, serverKeys, clientKeys] = await Promise.all([
    loadForge(),
    rsaKeyPair(),
    rsaKeyPair(),
    options.clientCommonName === undefined ? undefined : rsaKeyPair(),
  ]);

  const ca = newCertificate(forge, caKeys.publicPem, days);
  const caName = [{ name: 'commonName', value: 'kafkalite self-signed CA' }, { name: 'organizationName', value: 'kafkalite' }];
  ca.setSubject(caName);
  ca.setIssuer(caName);
  ca.setExtensions([
    { name: 'basicConstraints', cA: true, critical: true },
    { name: 'keyUsage', keyCertSign: true, cRLSign: true, critical: true },
    { name: 'subjectKeyIdentifier' },
  ]);
  signNatively(forge, ca, caKeys.privatePem);
  const caKeyId = ca.generateSubjectKeyIdentifier().getBytes();

  const hosts = [...new Set(['localhost', '127.0.0.1', '::1', ...(options.hosts ?? [])])].filter((h) => h !== '' && h !== '0.0.0.0' && h !== '::');
  const server = newCertificate(forge, serverKeys.publicPem, days);
  server.setSubject([{ name: 'commonName', value: 'localhost' }]);
  server.setIssuer(ca.subject.attributes);
  server.setExtensions([
    { name: 'basicConstraints', cA: false },
    { name: 'keyUsage', digitalSignature: true, keyEncipherment: true, critical: true },
    { name: 'extKeyUsage', serverAuth: true },
    // subjectAltName GeneralName types: 2 dNSName, 7 iPAddress (RFC 5280 4.2.1.6)
    { name: 'subjectAltName', altNames: hosts.map((h) => (isIP(h) !== 0 ? { type: 7, ip: h } : { type: 2, value: h })) },
    { name: 'authorityKeyIdentifier', keyIdentifier: caKeyId },
  ]);
  signNatively(forge, server, caKeys.privatePem);

  const out: SelfSignedTls = { caPem: forge.pki.certificateToPem(ca), serverCertPem: forge.pki.certificateToPem(server), serverKeyPem: serverKeys.privatePem };
  if (clientKeys !== undefined && options.clientCommonName !== undefined) {
    const client = newCertificate(forge, clientKeys.publicPem, days);
    client.setSubject([{ name: 'commonName', value: options.clientCommonName }]);
    client.setIssuer(ca.subject.attributes);
    client.setExtensions([
      { name: 'basicConstraints', cA: false },
      { name: 'keyUsage', digitalSignature: true, keyEncipherment: true, critical: true },
      { name: 'extKeyUsage', clientAuth: true },
      { name: 'authorityKeyIdentifier', keyIdentifier: caKeyId },
    ]);
    signNatively(forge, client, caKeys.privatePem);
    out.client = { certPem: forge.pki.certificateToPem(client), keyPem: clientKeys.privatePem, principal: `User:CN=${options.clientCommonName}` };
  }
  return out;
}

/**
 * The broker properties that install a self-signed setup as the PEM key store of every TLS
 * listener, with its CA as the trust store (which client certificates are checked against);
 * properties the caller set win.
 */
export function selfSignedTlsProperties(tls: SelfSignedTls): Record<string, string> {
  return {
    'ssl.keystore.type': 'PEM',
    'ssl.keystore.certificate.chain': tls.serverCertPem,
    'ssl.keystore.key': tls.serverKeyPem,
    'ssl.truststore.type': 'PEM',
    'ssl.truststore.certificates': tls.caPem,
  };
}
