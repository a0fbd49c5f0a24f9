/**
 * The data directory's `.lock` as Kafka takes it (`LogManager.lockLogDirs`: an OS lock on `.lock`,
 * not a pid in a file). Each holder here is another process, as it would be in use: a child that
 * opens the directory and waits, or one started in its own PID namespace (`unshare --pid --fork`,
 * which needs root, as CI runs).
 */
import assert from 'node:assert/strict';
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { cpSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, it } from 'node:test';
import { nativeAddon } from '../../src/native/addon.js';
import { dataDirLockState, lockDataDir } from '../../src/storage/dir-lock.js';
import { LogManager } from '../../src/storage/log-manager.js';
import { REPO_ROOT } from '../helpers/paths.js';

const LOG_MANAGER = join(REPO_ROOT, 'dist', 'src', 'storage', 'log-manager.js');
const CLI = join(REPO_ROOT, 'bin', 'kafkalite.js');

/** A script that opens `dir` and reports 'locked' (then waits), or prints the error's code and message. */
function openScript(dir: string): string {
  return `import { LogManager } from ${JSON.stringify(LOG_MANAGER)};
try {
  LogManager.open(${JSON.stringify(dir)});
  process.stdout.write('locked\\n');
  setInterval(() => {}, 1000);
} catch (e) {
  process.stdout.write('refused ' + e.code + ' ' + e.message + '\\n');
  process.exit(3);
}`;
}

/** Starts a process (optionally under a command prefix such as unshare) that opens `dir`; resolves once it holds the lock. */
async function holder(dir: string, prefix: string[] = []): Promise<ChildProcess> {
  const argv = [...prefix, process.execPath, '--input-type=module', '-e', openScript(dir)];
  const child = spawn(argv[0]!, argv.slice(1), { stdio: ['ignore', 'pipe', 'pipe'] });
  await new Promise<void>((resolve, reject) => {
    let out = '';
    child.stderr!.on('data', (x) => (out += x));
    child.stdout!.on('data', (x: Buffer) => {
      out += x;
      if (out.includes('locked')) resolve();
    });
    child.on('exit', (code) => reject(new Error(`holder exited ${code}: ${out}`)));
  });
  return child;
}

async function kill(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return;
  const exited = new Promise((r) => child.once('exit', r));
  child.kill('SIGKILL');
  await exited;
}

const refused = (e: { code?: string; message: string }) => e.code === 'STORAGE_ERROR' && /Failed to acquire lock on file \.lock/.test(e.message);

describe('data directory lock', { concurrency: false }, () => {
  let root: string;
  const children: ChildProcess[] = [];
  beforeEach(() => {
    root = mkdtempSync(join(tmpdir(), 'kafkalite-dirlock-'));
  });
  afterEach(async () => {
    for (const c of children.splice(0)) await kill(c);
    rmSync(root, { recursive: true, force: true });
  });

  it('is the kernel lock when the native addon is built (the CI build has it)', () => {
    assert.ok(nativeAddon, 'the native addon is part of the build CI tests');
    const lock = lockDataDir(root);
    try {
      assert.equal(lock.kind, 'os');
    } finally {
      lock.release();
    }
  });

  it('a second process is refused while the first holds the directory, and the error names it', async () => {
    const dir = join(root, 'data');
    const child = await holder(dir);
    children.push(child);
    assert.throws(
      () => LogManager.open(dir),
      (e: { code?: string; message: string }) => refused(e) && e.message.includes(`pid ${child.pid}`),
    );
    assert.deepEqual(dataDirLockState(dir), { locked: true, holderPid: child.pid });
  });

  it('after the holder is SIGKILLed the next opener starts: the kernel dropped the lock', async () => {
    const dir = join(root, 'data');
    const child = await holder(dir);
    await kill(child);
    assert.equal(readFileSync(join(dir, '.lock'), 'utf8'), String(child.pid), 'the dead holder left its pid behind');
    const m = LogManager.open(dir);
    m.close();
  });

  it('a copy of a live directory opens: a copied .lock carries no lock', async () => {
    const dir = join(root, 'data');
    children.push(await holder(dir));
    const copy = join(root, 'copy');
    cpSync(dir, copy, { recursive: true });
    const m = LogManager.open(copy);
    m.close();
    // the pid fallback cannot tell the copy from the live directory: it refuses (why the kernel lock)
    cpSync(dir, join(root, 'copy2'), { recursive: true });
    assert.throws(() => LogManager.open(join(root, 'copy2'), { lockAddon: undefined }), refused);
  });

  it('a stale pid of a live unrelated process in .lock does not block the start', () => {
    const dir = join(root, 'data');
    LogManager.open(dir).close();
    writeFileSync(join(dir, '.lock'), '1'); // pid 1 is always alive and is not a broker
    const m = LogManager.open(dir);
    m.close();
    // the pid fallback is fooled by it, and warns that it can be
    writeFileSync(join(dir, '.lock'), '1');
    const warnings: string[] = [];
    assert.throws(() => LogManager.open(dir, { lockAddon: undefined, logger: (_l, msg) => warnings.push(msg) }), refused);
    assert.match(warnings.join('\n'), /guarded by the pid in it only/);
  });

  it('a second open in the same process is refused (Kafka: OverlappingFileLockException)', () => {
    const dir = join(root, 'data');
    const m = LogManager.open(dir);
    try {
      assert.throws(() => LogManager.open(dir), (e: { message: string }) => /already held by this process/.test(e.message));
      // and below the in-process set, the kernel refuses a second open file description too
      const fd = spawnSync(process.execPath, ['--input-type=module', '-e', openScript(dir)], { encoding: 'utf8' });
      assert.equal(fd.status, 3, fd.stdout + fd.stderr);
    } finally {
      m.close();
    }
  });

  it('across PID namespaces: a broker in its own namespace is refused while this one holds the directory, and the reverse', async () => {
    assert.equal(process.getuid?.(), 0, 'unshare --pid needs root (CI runs as root)');
    const dir = join(root, 'data');
    const m = LogManager.open(dir);
    try {
      const r = spawnSync('unshare', ['--pid', '--fork', process.execPath, '--input-type=module', '-e', openScript(dir)], { encoding: 'utf8' });
      assert.equal(r.status, 3, `the namespaced opener was not refused: ${r.stdout}${r.stderr}`);
      assert.match(r.stdout, /refused STORAGE_ERROR Failed to acquire lock/);
    } finally {
      m.close();
    }
    const child = await holder(dir, ['unshare', '--pid', '--fork', '--kill-child']);
    children.push(child);
    // The holder is pid 1 in its namespace, which is what it recorded; this namespace cannot see it,
    // so the pid fallback would admit a second broker. The kernel lock does not.
    assert.equal(readFileSync(join(dir, '.lock'), 'utf8'), '1');
    assert.throws(() => LogManager.open(dir), refused);
  });

  it('read-only commands take no lock and say the directory is locked by a live broker', async () => {
    const dir = join(root, 'data');
    const child = await holder(dir);
    children.push(child);
    for (const args of [['verify', dir], ['stats', dir], ['groups', dir]]) {
      const r = spawnSync(process.execPath, [CLI, ...args], { encoding: 'utf8' });
      assert.match(r.stderr, new RegExp(`locked by a running broker or tool \\(pid ${child.pid}\\)`), `${args[0]}: ${r.stderr}`);
    }
    const free = join(root, 'free');
    LogManager.open(free).close();
    const r = spawnSync(process.execPath, [CLI, 'verify', free], { encoding: 'utf8' });
    assert.doesNotMatch(r.stderr, /locked/);
  });

  it('write commands take the lock: compact and recover are refused on a live directory', async () => {
    const dir = join(root, 'data');
    children.push(await holder(dir));
    for (const args of [['compact', dir], ['recover', dir]]) {
      const r = spawnSync(process.execPath, [CLI, ...args], { encoding: 'utf8' });
      assert.notEqual(r.status, 0, `${args[0]} ran on a locked directory: ${r.stdout}`);
      assert.match(r.stdout + r.stderr, /Failed to acquire lock on file \.lock/, args[0]);
    }
  });
});
