/**
 * `kafkalite serve --tls self-signed --tls-client alice` as a user runs it, with kcat (librdkafka)
 * as the client: the CA the command writes (`<tls-dir>/ca.pem`) is all kcat needs to produce and
 * consume over SSL; the client certificate it writes passes a listener with
 * `ssl.client.auth=required`, and kcat without it, or without the CA, fails. No openssl step.
 */
import assert from 'node:assert/strict';
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, test } from 'node:test';
import { REPO_ROOT } from '../../helpers/paths.js';
import { runCommand } from '../../helpers/python-peer.js';

const KCAT = process.env.KAFKALITE_KCAT ?? 'kcat';
const CLI = join(REPO_ROOT, 'bin', 'kafkalite.js');

async function kcat(args: string[], input?: string): Promise<{ code: number | null; stdout: string; stderr: string }> {
  const r = await runCommand(KCAT, args, { timeoutMs: 60_000, ...(input !== undefined ? { input } : {}) });
  return { code: r.code, stdout: r.stdout.toString('utf8'), stderr: r.stderr.toString('utf8') };
}

/** Starts `serve` and resolves with its stdout once the TLS lines are out. */
function serve(args: string[]): Promise<{ child: ChildProcess; out: string }> {
  const child = spawn(process.execPath, [CLI, 'serve', ...args], { stdio: ['ignore', 'pipe', 'pipe'] });
  let out = '';
  let err = '';
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`serve did not start:\n${out}\n${err}`)), 60_000);
    child.stderr!.on('data', (d: Buffer) => (err += d.toString()));
    child.stdout!.on('data', (d: Buffer) => {
      out += d.toString();
      if (out.includes('TLS: client certificate')) {
        clearTimeout(timer);
        resolve({ child, out });
      }
    });
    child.once('exit', (code) => reject(new Error(`serve exited ${code}:\n${out}\n${err}`)));
  });
}

describe('kafkalite serve --tls self-signed with kcat', () => {
  test('SSL with the written CA; mutual TLS with the written client certificate', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'kafkalite-selfsigned-'));
    const tlsDir = join(dir, 'tls');
    const { child, out } = await serve([
      '--port', '0', '--data-dir', join(dir, 'data'), '--log-level', 'warn', '--user', 'bob:bob-secret', '--tls', 'self-signed', '--tls-client', 'alice', '--tls-dir', tlsDir,
      '--config', 'listeners=SSL://127.0.0.1:0,MTLS://127.0.0.1:0',
      '--config', 'listener.security.protocol.map=SSL:SSL,MTLS:SSL',
      '--config', 'listener.name.mtls.ssl.client.auth=required',
    ]);
    try {
      const ssl = /listening on (127\.0\.0\.1:\d+)/.exec(out)![1]!;
      const mtls = /listener MTLS \(SSL\) on (127\.0\.0\.1:\d+)/.exec(out)![1]!;
      assert.match(out, new RegExp(`self-signed CA written to ${join(tlsDir, 'ca.pem').replace(/[.]/g, '\\.')}`));
      assert.match(out, /principal User:CN=alice/);
      const trust = ['-X', 'security.protocol=SSL', '-X', `ssl.ca.location=${join(tlsDir, 'ca.pem')}`];
      const lines = Array.from({ length: 5 }, (_, i) => `self-signed ${i}`);
      const produced = await kcat(['-b', ssl, '-t', 'tls-topic', '-P', ...trust], lines.join('\n') + '\n');
      assert.equal(produced.code, 0, produced.stderr);
      const consumed = await kcat(['-b', ssl, '-t', 'tls-topic', '-C', '-o', 'beginning', '-e', '-q', ...trust]);
      assert.deepEqual(consumed.stdout.trim().split('\n'), lines);

      const cert = ['-X', `ssl.certificate.location=${join(tlsDir, 'client.pem')}`, '-X', `ssl.key.location=${join(tlsDir, 'client.key')}`];
      const mutual = await kcat(['-b', mtls, '-t', 'tls-topic', '-C', '-o', 'beginning', '-e', '-q', ...trust, ...cert]);
      assert.deepEqual(mutual.stdout.trim().split('\n'), lines, mutual.stderr);

      // no client certificate on the mutual-TLS listener, no CA on the SSL one: librdkafka's handshake failures
      const noCert = await kcat(['-b', mtls, '-L', '-m', '5', ...trust]);
      assert.notEqual(noCert.code, 0);
      const noCa = await kcat(['-b', ssl, '-L', '-m', '5', '-X', 'security.protocol=SSL']);
      assert.notEqual(noCa.code, 0);
      assert.match(noCa.stderr, /certificate verify failed|SSL handshake failed/);
    } finally {
      child.kill('SIGTERM');
      await new Promise((resolve) => child.once('exit', resolve));
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
