/**
 * A TLS listener's server options from Kafka's `ssl.*` properties (SslConfigs, DefaultSslEngineFactory):
 * PEM keystores inline (`ssl.keystore.key` + `ssl.keystore.certificate.chain`, KIP-651) or as a file
 * (`ssl.keystore.location`), PKCS12 files with `ssl.keystore.password`; PEM truststores inline
 * (`ssl.truststore.certificates`) or as a file; `ssl.client.auth`; `ssl.enabled.protocols`. JKS
 * stores cannot be read by Node and are refused at start. Kafka's error texts for the conflicting
 * combinations are kept (DefaultSslEngineFactory.createKeystore/createTruststore).
 */
import { readFileSync } from 'node:fs';
import type { TLSSocket, TlsOptions } from 'node:tls';
import { InvalidConfigError } from '../../errors.js';

export type SslClientAuth = 'none' | 'requested' | 'required';

export interface ListenerTls {
  readonly options: TlsOptions;
  readonly clientAuth: SslClientAuth;
  readonly principalRules: PrincipalRule[];
}

/** A property of this listener: `listener.name.<l>.<key>` over `<key>` (AbstractConfig.valuesWithPrefixOverride). */
export type ListenerProperty = (key: string) => string | undefined;

function readFile(key: string, path: string): Buffer {
  try {
    return readFileSync(path);
  } catch (e) {
    throw new InvalidConfigError(`Failed to load SSL keystore/truststore ${path} (${key}): ${(e as Error).message}`);
  }
}

const PEM_BLOCK = /-----BEGIN ([A-Z0-9 ]+)-----[\s\S]*?-----END \1-----/g;

function pemBlocks(text: string, kind: RegExp): string[] {
  return [...text.matchAll(PEM_BLOCK)].filter((m) => kind.test(m[1]!)).map((m) => m[0].replace(/\r\n/g, '\n'));
}

export function listenerTls(prop: ListenerProperty, clientAuthKeyOverride: string | undefined): ListenerTls {
  const options: TlsOptions = {};
  const keystoreType = (prop('ssl.keystore.type') ?? 'JKS').toUpperCase();
  const key = prop('ssl.keystore.key');
  const chain = prop('ssl.keystore.certificate.chain');
  const location = prop('ssl.keystore.location');
  const storePassword = prop('ssl.keystore.password');
  const keyPassword = prop('ssl.key.password');
  if (key !== undefined && keystoreType !== 'PEM') throw new InvalidConfigError(`SSL private key can be specified only for PEM, but key store type is ${keystoreType}.`);
  if (key !== undefined && chain === undefined) throw new InvalidConfigError('SSL private key is specified, but certificate chain is not specified.');
  if (chain !== undefined && key === undefined) throw new InvalidConfigError('SSL certificate chain is specified, but private key is not specified');
  if (key !== undefined && location !== undefined) throw new InvalidConfigError('Both SSL key store location and separate private key are specified.');
  if (keystoreType === 'PEM' && storePassword !== undefined) {
    throw new InvalidConfigError('SSL key store password cannot be specified with PEM format, only key password may be specified.');
  }
  let pemText: string | undefined;
  if (key !== undefined && chain !== undefined) pemText = `${key}\n${chain}`;
  else if (location !== undefined) {
    if (keystoreType === 'PEM') pemText = readFile('ssl.keystore.location', location).toString('utf8');
    else if (keystoreType === 'PKCS12') {
      if (storePassword === undefined) throw new InvalidConfigError('SSL key store is specified, but key store password is not specified.');
      options.pfx = readFile('ssl.keystore.location', location);
      options.passphrase = storePassword;
    } else throw new InvalidConfigError(`ssl.keystore.type ${keystoreType} is not supported by kafkalite (PEM and PKCS12 are)`);
  } else if (storePassword !== undefined) {
    throw new InvalidConfigError('SSL key store is not specified, but key store password is specified.');
  }
  if (pemText !== undefined) {
    const keys = pemBlocks(pemText, /PRIVATE KEY$/);
    if (keys.length !== 1) throw new InvalidConfigError(`Expected one private key, but found ${keys.length}`);
    const certs = pemBlocks(pemText, /^CERTIFICATE$/);
    if (certs.length === 0) throw new InvalidConfigError('At least one certificate expected, but none found');
    options.key = keys[0]!;
    options.cert = certs.join('\n');
    if (keyPassword !== undefined) options.passphrase = keyPassword;
  }
  if (options.key === undefined && options.pfx === undefined) {
    throw new InvalidConfigError('A TLS listener needs a key store: ssl.keystore.location, or ssl.keystore.type=PEM with ssl.keystore.key and ssl.keystore.certificate.chain');
  }
  const truststoreType = (prop('ssl.truststore.type') ?? 'JKS').toUpperCase();
  const trustCerts = prop('ssl.truststore.certificates');
  const trustLocation = prop('ssl.truststore.location');
  if (trustCerts !== undefined && truststoreType !== 'PEM') throw new InvalidConfigError(`SSL trust store certs can be specified only for PEM, but trust store type is ${truststoreType}.`);
  if (trustCerts !== undefined && trustLocation !== undefined) throw new InvalidConfigError('Both SSL trust store location and separate trust certificates are specified.');
  if (truststoreType === 'PEM' && prop('ssl.truststore.password') !== undefined) throw new InvalidConfigError('SSL trust store password cannot be specified for PEM format.');
  let trustText = trustCerts;
  if (trustLocation !== undefined) {
    if (truststoreType !== 'PEM') throw new InvalidConfigError(`ssl.truststore.type ${truststoreType} is not supported by kafkalite (PEM is)`);
    trustText = readFile('ssl.truststore.location', trustLocation).toString('utf8');
  }
  if (trustText !== undefined) {
    const certs = pemBlocks(trustText, /^CERTIFICATE$/);
    if (certs.length === 0) throw new InvalidConfigError('At least one certificate expected, but none found');
    options.ca = certs;
  }
  const clientAuth = clientAuthKeyOverride ?? 'none';
  if (clientAuth !== 'none' && clientAuth !== 'requested' && clientAuth !== 'required') {
    throw new InvalidConfigError(`Invalid value ${clientAuth} for configuration ssl.client.auth: String must be one of: required, requested, none`);
  }
  if (clientAuth !== 'none') {
    options.requestCert = true;
    // `requested`: a client without a certificate is ANONYMOUS, an untrusted one still fails (checked on 'secure')
    options.rejectUnauthorized = clientAuth === 'required';
  }
  const protocols = (prop('ssl.enabled.protocols') ?? 'TLSv1.2,TLSv1.3').split(',').map((s) => s.trim()).filter((s) => s !== '');
  const known = ['TLSv1.2', 'TLSv1.3'] as const;
  for (const p of protocols) if (!(known as readonly string[]).includes(p)) throw new InvalidConfigError(`ssl.enabled.protocols: ${p} is not supported (TLSv1.2, TLSv1.3)`);
  options.minVersion = protocols.includes('TLSv1.2') ? 'TLSv1.2' : 'TLSv1.3';
  options.maxVersion = protocols.includes('TLSv1.3') ? 'TLSv1.3' : 'TLSv1.2';
  return { options, clientAuth, principalRules: parsePrincipalRules(prop('ssl.principal.mapping.rules') ?? 'DEFAULT') };
}

/**
 * The subject DN as Java's X500Principal.getName() prints it (RFC 2253): most specific RDN first,
 * no space after commas. Node lists the RDNs one per line, most general first.
 */
export function rfc2253Subject(subject: string): string {
  return subject
    .split('\n')
    .filter((s) => s !== '')
    .reverse()
    .map((rdn) => {
      const eq = rdn.indexOf('=');
      const value = rdn.slice(eq + 1).replace(/([,+"\\<>;])/g, '\\$1');
      return `${rdn.slice(0, eq)}=${value}`;
    })
    .join(',');
}

/** One `ssl.principal.mapping.rules` item (SslPrincipalMapper): DEFAULT, or RULE:pattern/replacement/[LU]. */
export type PrincipalRule = { kind: 'default' } | { kind: 'rule'; pattern: RegExp; replacement: string; caseFold: '' | 'L' | 'U' };

const RULE = /^RULE:((?:\\\/|[^/])*)\/((?:\\\/|[^/])*)\/([LU]?)$/;

export function parsePrincipalRules(raw: string): PrincipalRule[] {
  const rules: PrincipalRule[] = [];
  // items are separated by commas that start a new item (a pattern may contain commas)
  for (const item of raw.split(/,(?=\s*(?:DEFAULT|RULE:))/).map((s) => s.trim()).filter((s) => s !== '')) {
    if (item === 'DEFAULT') {
      rules.push({ kind: 'default' });
      continue;
    }
    const m = RULE.exec(item);
    if (m === null) throw new InvalidConfigError(`Invalid rule: ${item} (ssl.principal.mapping.rules)`);
    let pattern: RegExp;
    try {
      pattern = new RegExp(`^(?:${m[1]!.replace(/\\\//g, '/')})$`);
    } catch (e) {
      throw new InvalidConfigError(`Invalid rule: ${item}: ${(e as Error).message}`);
    }
    rules.push({ kind: 'rule', pattern, replacement: m[2]!.replace(/\\\//g, '/'), caseFold: (m[3] ?? '') as '' | 'L' | 'U' });
  }
  return rules;
}

/** The principal name for a DN, or undefined when no rule applies (Kafka then fails the connection). */
export function mapPrincipal(rules: readonly PrincipalRule[], dn: string): string | undefined {
  for (const r of rules) {
    if (r.kind === 'default') return dn;
    if (!r.pattern.test(dn)) continue;
    const out = dn.replace(r.pattern, r.replacement);
    return r.caseFold === 'L' ? out.toLowerCase() : r.caseFold === 'U' ? out.toUpperCase() : out;
  }
  return undefined;
}

/** The SSL principal of a handshaken socket (DefaultKafkaPrincipalBuilder): ANONYMOUS without a certificate. */
export function sslPrincipal(socket: TLSSocket, tls: ListenerTls): string | undefined {
  const cert = socket.getPeerX509Certificate();
  if (cert === undefined) return 'User:ANONYMOUS';
  const name = mapPrincipal(tls.principalRules, rfc2253Subject(cert.subject));
  return name === undefined ? undefined : `User:${name}`;
}
