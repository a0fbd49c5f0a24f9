/**
 * scripts/check-peers.sh, the fresh-machine check before `npm test`, run against a fake PATH
 * (an `id`, an `apt-get` that records its arguments, a `kcat` when wanted) and a fake python3
 * (KAFKALITE_PYTHON) that reports which modules it lacks: nothing on this machine is installed or
 * removed. A missing peer fails with one line naming the install command; as root it is installed
 * with scripts/install-peers.sh, the apt-get line .ci/run uses.
 */
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { chmodSync, existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, describe, test } from 'node:test';
import { REPO_ROOT } from '../helpers/paths.js';
import { tempDir } from '../helpers/storage.js';

const SCRIPT = join(REPO_ROOT, 'scripts', 'check-peers.sh');
const MODULES = ['kafka', 'confluent_kafka', 'lz4', 'zstandard', 'xxhash', 'snappy', 'crc32c'];
const DEBIAN_PEERS = 'kcat python3-kafka python3-confluent-kafka python3-lz4 python3-zstandard python3-xxhash python3-snappy python3-crc32c chromium openssl';

const tmp = tempDir('check-peers');
after(() => tmp.cleanup());
let n = 0;

interface Machine {
  uid: number;
  kcat: boolean;
  /** Python modules the fake python3 lacks. */
  lacking?: string[];
  /** apt-get installs kcat (and the modules) when called. */
  aptInstalls?: boolean;
  shared?: boolean;
  /** Debian's chromium (present unless false). */
  chromium?: boolean;
}

function run(m: Machine): { status: number | null; stderr: string; stdout: string; apt: string[] } {
  const dir = join(tmp.dir, `machine-${n++}`);
  const bin = join(dir, 'bin');
  mkdirSync(bin, { recursive: true });
  const script = (name: string, body: string): void => {
    writeFileSync(join(bin, name), `#!/bin/bash\n${body}\n`);
    chmodSync(join(bin, name), 0o755);
  };
  const aptLog = join(dir, 'apt.log');
  const lacking = join(dir, 'lacking');
  writeFileSync(lacking, (m.lacking ?? []).join(' '));
  script('id', `echo ${m.uid}`);
  if (m.kcat) script('kcat', 'exit 0');
  if (m.chromium !== false) script('chromium', 'exit 0');
  // answers the script's find_spec probe: the modules it was asked about that are "missing"
  script('python3', `for a in "\${@:3}"; do for l in $(<${lacking}); do [[ $a == "$l" ]] && printf '%s ' "$a"; done; done; echo`);
  script('apt-get', `echo "$*" >> ${aptLog}${m.aptInstalls ? `; printf '#!/bin/bash\\n' > ${bin}/kcat; /bin/chmod +x ${bin}/kcat; /bin/cp ${bin}/kcat ${bin}/chromium; : > ${lacking}` : ''}`);
  const shared = join(dir, 'shared');
  if (m.shared !== false) mkdirSync(join(shared, 'corpora'), { recursive: true });
  const r = spawnSync('/bin/bash', [SCRIPT], {
    encoding: 'utf8',
    env: { PATH: bin, KAFKALITE_PYTHON: join(bin, 'python3'), KAFKALITE_CHROMIUM: join(bin, 'chromium'), KAFKALITE_SHARED: shared },
  });
  return { status: r.status, stderr: r.stderr, stdout: r.stdout, apt: existsSync(aptLog) ? readFileSync(aptLog, 'utf8').trim().split('\n') : [] };
}

describe('scripts/check-peers.sh', () => {
  test('every peer present: passes silently, installs nothing', () => {
    const r = run({ uid: 1000, kcat: true });
    assert.deepEqual([r.status, r.stderr, r.stdout, r.apt], [0, '', '', []]);
  });

  test('not root, peers missing: one line naming them and the command that installs them', () => {
    const r = run({ uid: 1000, kcat: false, lacking: ['confluent_kafka', 'crc32c'] });
    assert.equal(r.status, 1);
    assert.deepEqual(r.apt, []);
    const lines = r.stderr.trimEnd().split('\n');
    assert.equal(lines.length, 1, r.stderr);
    assert.equal(lines[0], `check-peers: missing test peers (kcat, python3 module confluent_kafka, python3 module crc32c): install them with: sudo ${REPO_ROOT}/scripts/install-peers.sh`);
    const noBrowser = run({ uid: 1000, kcat: true, chromium: false });
    assert.equal(noBrowser.status, 1);
    assert.equal(noBrowser.stderr, `check-peers: missing test peers (chromium): install them with: sudo ${REPO_ROOT}/scripts/install-peers.sh\n`);
  });

  test('root, peers missing: installs them with the apt-get line of scripts/install-peers.sh, then passes', () => {
    const r = run({ uid: 0, kcat: false, chromium: false, lacking: MODULES, aptInstalls: true });
    assert.equal(r.status, 0, r.stderr);
    assert.deepEqual(r.apt, ['update -qq', `install -y -qq --no-install-recommends ${DEBIAN_PEERS}`]);
    assert.match(r.stderr, /^check-peers: installing the Debian test peers \(missing: kcat, chromium, python3 module kafka, .*\) with scripts\/install-peers.sh\n$/);
  });

  test('root, and the install does not bring them: the same one line', () => {
    const r = run({ uid: 0, kcat: true, lacking: ['xxhash'] });
    assert.equal(r.status, 1);
    assert.equal(r.apt.length, 2);
    assert.match(r.stderr.trimEnd().split('\n').at(-1)!, /^check-peers: missing test peers \(python3 module xxhash\): install them with: sudo /);
  });

  test('../shared missing: one line naming it (nothing installs it)', () => {
    const r = run({ uid: 0, kcat: true, shared: false });
    assert.equal(r.status, 1);
    assert.deepEqual(r.apt, []);
    assert.match(r.stderr, /^check-peers: missing \S+\/shared\/corpora: the corpora tests need \.\.\/shared beside the checkout \(or KAFKALITE_SHARED\)\n$/);
  });

  test('.ci/run installs the peers with the same script', () => {
    assert.match(readFileSync(join(REPO_ROOT, '.ci', 'run'), 'utf8'), /^scripts\/install-peers\.sh$/m);
    assert.match(readFileSync(join(REPO_ROOT, 'scripts', 'install-peers.sh'), 'utf8'), new RegExp(DEBIAN_PEERS.split(' ').join('\\s+(\\\\\\s+)?')));
  });
});
