/**
 * Test certificates made at test time with the system's `openssl` (no key is committed): a CA, a
 * server certificate for 127.0.0.1/localhost signed by it, a client certificate signed by it, and a
 * client certificate from another CA (untrusted). EC P-256 keys in unencrypted PKCS#8 PEM, the form
 * Kafka's PEM key stores take.
 */
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { requirePeer } from './tier.js';

export interface TestCerts {
  dir: string;
  caPem: string;
  caFile: string;
  serverCert: string;
  serverKey: string;
  serverCertFile: string;
  serverKeyFile: string;
  clientCertFile: string;
  clientKeyFile: string;
  /** The client certificate's subject as Kafka prints it (RFC 2253). */
  clientDn: string;
  rogueCertFile: string;
  rogueKeyFile: string;
  remove(): void;
}

function openssl(args: string[], cwd: string): void {
  execFileSync('openssl', args, { cwd, stdio: ['ignore', 'ignore', 'pipe'] });
}

function newKey(dir: string, name: string): void {
  openssl(['genpkey', '-algorithm', 'EC', '-pkeyopt', 'ec_paramgen_curve:P-256', '-out', name], dir);
}

function signed(dir: string, name: string, subject: string, ca: string, ext: string): void {
  newKey(dir, `${name}.key`);
  openssl(['req', '-new', '-key', `${name}.key`, '-subj', subject, '-out', `${name}.csr`], dir);
  writeFileSync(join(dir, `${name}.ext`), ext);
  openssl(['x509', '-req', '-in', `${name}.csr`, '-CA', `${ca}.crt`, '-CAkey', `${ca}.key`, '-CAcreateserial', '-days', '2', '-extfile', `${name}.ext`, '-out', `${name}.crt`], dir);
}

function selfSignedCa(dir: string, name: string, subject: string): void {
  newKey(dir, `${name}.key`);
  openssl(['req', '-x509', '-new', '-key', `${name}.key`, '-subj', subject, '-days', '2', '-out', `${name}.crt`], dir);
}

export function makeTestCerts(): TestCerts {
  requirePeer('openssl');
  const dir = mkdtempSync(join(tmpdir(), 'kafkalite-certs-'));
  selfSignedCa(dir, 'ca', '/CN=kafkalite test CA');
  signed(dir, 'server', '/CN=localhost', 'ca', 'subjectAltName=IP:127.0.0.1,DNS:localhost\nextendedKeyUsage=serverAuth\n');
  signed(dir, 'client', '/C=US/O=Kafkalite/OU=Tests/CN=alice', 'ca', 'extendedKeyUsage=clientAuth\n');
  selfSignedCa(dir, 'rogue-ca', '/CN=rogue CA');
  signed(dir, 'rogue', '/CN=mallory', 'rogue-ca', 'extendedKeyUsage=clientAuth\n');
  const read = (f: string): string => readFileSync(join(dir, f), 'utf8');
  return {
    dir,
    caPem: read('ca.crt'),
    caFile: join(dir, 'ca.crt'),
    serverCert: read('server.crt'),
    serverKey: read('server.key'),
    serverCertFile: join(dir, 'server.crt'),
    serverKeyFile: join(dir, 'server.key'),
    clientCertFile: join(dir, 'client.crt'),
    clientKeyFile: join(dir, 'client.key'),
    clientDn: 'CN=alice,OU=Tests,O=Kafkalite,C=US',
    rogueCertFile: join(dir, 'rogue.crt'),
    rogueKeyFile: join(dir, 'rogue.key'),
    remove: () => rmSync(dir, { recursive: true, force: true }),
  };
}

/** Broker properties of the four kinds of listener on ephemeral ports, with the test key store (inline PEM). */
export function securedBrokerConfig(c: TestCerts, extra: Record<string, string> = {}): Record<string, string> {
  return {
    listeners: 'PLAINTEXT://127.0.0.1:0,SSL://127.0.0.1:0,MTLS://127.0.0.1:0,SASL_PLAINTEXT://127.0.0.1:0,SASL_SSL://127.0.0.1:0',
    'listener.security.protocol.map': 'PLAINTEXT:PLAINTEXT,SSL:SSL,MTLS:SSL,SASL_PLAINTEXT:SASL_PLAINTEXT,SASL_SSL:SASL_SSL',
    'ssl.keystore.type': 'PEM',
    'ssl.keystore.certificate.chain': c.serverCert,
    'ssl.keystore.key': c.serverKey,
    'ssl.truststore.type': 'PEM',
    'ssl.truststore.location': c.caFile,
    'listener.name.mtls.ssl.client.auth': 'required',
    'listener.name.sasl_plaintext.plain.sasl.jaas.config':
      'org.apache.kafka.common.security.plain.PlainLoginModule required username="admin" password="admin-secret" user_bob="bob-secret";',
    'listener.name.sasl_plaintext.sasl.enabled.mechanisms': 'PLAIN,SCRAM-SHA-256,SCRAM-SHA-512,OAUTHBEARER',
    'connection.failed.authentication.delay.ms': '0',
    ...extra,
  };
}
