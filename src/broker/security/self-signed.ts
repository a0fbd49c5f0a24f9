/**
 * `startBroker({ tls: 'self-signed' })` / `kafkalite serve --tls self-signed`: a throw-away CA and a
 * server certificate it signs, made at start, so a test can connect over SSL or SASL_SSL with no
 * openssl step; the CA's PEM is handed back for the client's trust store, and on request a client
 * certificate for mutual TLS (its subject becomes the principal through Kafka's default
 * `ssl.principal.mapping.rules`, e.g. `User:CN=alice`).
 *
 * The X.509 structures come from node-forge (certificate fields and extensions by name, no
 * hand-written ASN.1). The keys are ECDSA P-256, made by Node's own crypto on the thread pool: an
 * RSA-2048 key cost about 200 ms of CPU to make, a P-256 key well under a millisecond, and a
 * broker made three at every start. Every client Kafka speaks to takes P-256 certificates
 * (Java's PEM key store, `DefaultSslEngineFactory.PemStore`, reads EC keys; OpenSSL for
 * librdkafka and Python; Node's TLS for kafkajs). forge's certificate model only knows RSA keys,
 * so its TBSCertificate gets the key's SubjectPublicKeyInfo (Node's DER) and the
 * ecdsa-with-SHA256 algorithm identifier (RFC 5758 3.2: no parameters) in place of its RSA ones,
 * and Node signs it. node-forge is loaded only when a self-signed setup is asked for.
 */
import { createHash, generateKeyPair, randomBytes, sign } from 'node:crypto';
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

/** ecdsa-with-SHA256 (RFC 5758 3.2); id-ecPublicKey and the secp256r1 curve (RFC 5480 2.1.1). */
const ECDSA_WITH_SHA256 = '1.2.840.10045.4.3.2';
const ID_EC_PUBLIC_KEY = '1.2.840.10045.2.1';
const SECP256R1 = '1.2.840.10045.3.1.7';

interface KeyPair {
  /** PKCS#8 PEM. */
  privatePem: string;
  /** The public key: the uncompressed curve point (0x04, x, y). */
  point: Buffer;
  /** The subject key identifier: SHA-1 of the public key's bits (RFC 5280 4.2.1.2, method 1). */
  keyId: Buffer;
}

async function ecKeyPair(): Promise<KeyPair> {
  const { privateKey, publicKey } = await generateKeyPairAsync('ec', {
    namedCurve: 'P-256',
    publicKeyEncoding: { type: 'spki', format: 'der' },
    privateKeyEncoding: { type: 'pkcs8', format: 'pem' },
  });
  // a P-256 SubjectPublicKeyInfo ends with its BIT STRING's 65 bytes: the uncompressed point
  const point = publicKey.subarray(publicKey.length - 65);
  return { privatePem: privateKey, point, keyId: createHash('sha1').update(point).digest() };
}

let forgeModule: Promise<typeof Forge> | undefined;
function loadForge(): Promise<typeof Forge> {
  forgeModule ??= import('node-forge').then((m) => ('default' in m ? (m.default as typeof Forge) : m));
  return forgeModule;
}

/** A certificate for `keys`, its fields to be set by the caller; `sign` makes its PEM. */
function newCertificate(forge: typeof Forge, days: number): Forge.pki.Certificate {
  const cert = forge.pki.createCertificate();
  // forge serializes an RSA key here; signAsPem puts the certificate's own key in its place
  cert.publicKey = forge.pki.setRsaPublicKey(new forge.jsbn.BigInteger('1'), new forge.jsbn.BigInteger('1'));
  // a positive 16-byte serial (RFC 5280: at most 20 octets, non-negative)
  cert.serialNumber = `01${randomBytes(15).toString('hex')}`;
  const now = Date.now();
  cert.validity.notBefore = new Date(now - 60_000);
  cert.validity.notAfter = new Date(now + days * 86_400_000);
  return cert;
}

/** The subjectKeyIdentifier extension, given its value (forge would derive one from an RSA key). */
function subjectKeyIdentifier(forge: typeof Forge, keys: KeyPair): { name: string; value: Forge.asn1.Asn1 } {
  return { name: 'subjectKeyIdentifier', value: forge.asn1.create(forge.asn1.Class.UNIVERSAL, forge.asn1.Type.OCTETSTRING, false, keys.keyId.toString('binary')) };
}

declare module 'node-forge' {
  namespace pki {
    /** forge's TBSCertificate of a certificate (x509.js), which @types/node-forge leaves out. */
    function getTBSCertificate(cert: Certificate): asn1.Asn1;
  }
}

/**
 * The certificate's PEM, for `subjectKeys`, signed by `issuerKeyPem`: forge's TBSCertificate with
 * the subject's SubjectPublicKeyInfo and ecdsa-with-SHA256 in place of its RSA fields, signed
 * natively (an ECDSA signature in its DER form, as X.509 carries it).
 */
function signAsPem(forge: typeof Forge, cert: Forge.pki.Certificate, subjectKeys: KeyPair, issuerKeyPem: string): string {
  const { asn1 } = forge;
  const { UNIVERSAL } = asn1.Class;
  const oid = (id: string): Forge.asn1.Asn1 => asn1.create(UNIVERSAL, asn1.Type.OID, false, asn1.oidToDer(id).getBytes());
  // AlgorithmIdentifier of ecdsa-with-SHA256: the OID alone, no parameters (RFC 5758 3.2)
  const algorithm = (): Forge.asn1.Asn1 => asn1.create(UNIVERSAL, asn1.Type.SEQUENCE, true, [oid(ECDSA_WITH_SHA256)]);
  // SubjectPublicKeyInfo: id-ecPublicKey on secp256r1, the point as the BIT STRING (RFC 5480 2)
  const spki = asn1.create(UNIVERSAL, asn1.Type.SEQUENCE, true, [
    asn1.create(UNIVERSAL, asn1.Type.SEQUENCE, true, [oid(ID_EC_PUBLIC_KEY), oid(SECP256R1)]),
    asn1.create(UNIVERSAL, asn1.Type.BITSTRING, false, `\0${subjectKeys.point.toString('binary')}`),
  ]);
  cert.siginfo.algorithmOid = ECDSA_WITH_SHA256;
  const tbs = forge.pki.getTBSCertificate(cert);
  // TBSCertificate: version, serialNumber, signature, issuer, validity, subject, subjectPublicKeyInfo, extensions
  const fields = tbs.value;
  if (typeof fields === 'string' || fields.length !== 8) throw new Error('node-forge built an unexpected TBSCertificate');
  fields[2] = algorithm();
  fields[6] = spki;
  const tbsDer = Buffer.from(asn1.toDer(tbs).getBytes(), 'binary');
  const signature = sign('sha256', tbsDer, issuerKeyPem);
  const certificate = asn1.create(asn1.Class.UNIVERSAL, asn1.Type.SEQUENCE, true, [
    tbs,
    algorithm(),
    asn1.create(asn1.Class.UNIVERSAL, asn1.Type.BITSTRING, false, `\0${signature.toString('binary')}`),
  ]);
  return forge.pem.encode({ type: 'CERTIFICATE', body: asn1.toDer(certificate).getBytes() });
}

export async function makeSelfSignedTls(options: SelfSignedTlsOptions = {}): Promise<SelfSignedTls> {
  const days = options.days ?? 30;
  const [forge, caKeys, serverKeys, clientKeys] = await Promise.all([
    loadForge(),
    ecKeyPair(),
    ecKeyPair(),
    options.clientCommonName === undefined ? undefined : ecKeyPair(),
  ]);
  const caKeyId = { name: 'authorityKeyIdentifier', keyIdentifier: caKeys.keyId.toString('binary') };

  const ca = newCertificate(forge, days);
  const caName = [{ name: 'commonName', value: 'kafkalite self-signed CA' }, { name: 'organizationName', value: 'kafkalite' }];
  ca.setSubject(caName);
  ca.setIssuer(caName);
  ca.setExtensions([
    { name: 'basicConstraints', cA: true, critical: true },
    { name: 'keyUsage', keyCertSign: true, cRLSign: true, critical: true },
    subjectKeyIdentifier(forge, caKeys),
  ]);
  const caPem = signAsPem(forge, ca, caKeys, caKeys.privatePem);

  const hosts = [...new Set(['localhost', '127.0.0.1', '::1', ...(options.hosts ?? [])])].filter((h) => h !== '' && h !== '0.0.0.0' && h !== '::');
  const server = newCertificate(forge, days);
  server.setSubject([{ name: 'commonName', value: 'localhost' }]);
  server.setIssuer(ca.subject.attributes);
  server.setExtensions([
    { name: 'basicConstraints', cA: false },
    // ECDHE key exchange: the server key signs, it never enciphers a key (RFC 5480 3)
    { name: 'keyUsage', digitalSignature: true, critical: true },
    { name: 'extKeyUsage', serverAuth: true },
    // subjectAltName GeneralName types: 2 dNSName, 7 iPAddress (RFC 5280 4.2.1.6)
    { name: 'subjectAltName', altNames: hosts.map((h) => (isIP(h) !== 0 ? { type: 7, ip: h } : { type: 2, value: h })) },
    caKeyId,
  ]);

  const out: SelfSignedTls = { caPem, serverCertPem: signAsPem(forge, server, serverKeys, caKeys.privatePem), serverKeyPem: serverKeys.privatePem };
  if (clientKeys !== undefined && options.clientCommonName !== undefined) {
    const client = newCertificate(forge, days);
    client.setSubject([{ name: 'commonName', value: options.clientCommonName }]);
    client.setIssuer(ca.subject.attributes);
    client.setExtensions([
      { name: 'basicConstraints', cA: false },
      { name: 'keyUsage', digitalSignature: true, critical: true },
      { name: 'extKeyUsage', clientAuth: true },
      caKeyId,
    ]);
    out.client = { certPem: signAsPem(forge, client, clientKeys, caKeys.privatePem), keyPem: clientKeys.privatePem, principal: `User:CN=${options.clientCommonName}` };
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
