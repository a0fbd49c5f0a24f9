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
