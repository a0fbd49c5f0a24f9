/**
 * `kafkalite acls` on a data directory: --add with kafka-acls.sh's options (prefixed patterns,
 * several operations, hosts), --list (all, by principal, MATCH for a resource), --remove; the ACLs
 * it writes are the ones a broker started on the directory enforces (an anonymous Produce allowed
 * by an offline ACL, denied elsewhere); changes are refused while a broker holds the directory;
 * bad input is a usage error. The command runs in this process through the CLI's `main()`, and
 * once as the built binary (a usage error's exit code).
 */
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { parseAclsArgs } from '../../src/cli/acls.js';
import { join } from 'node:path';
import { describe, test } from 'node:test';
import { STANDARD_AUTHORIZER_CLASS } from '../../src/broker/auth/config.js';
import { ApiKey } from '../../src/protocol/api-keys.js';
import { errorName } from '../../src/protocol/error-codes.js';
import { encodeRecordBatch } from '../../src/record/builder.js';
import { withBroker } from '../helpers/broker.js';
import { runCli, spawnCli } from '../helpers/cli.js';
import { call } from '../broker/group/call.js';

const run = (...args: string[]) => runCli('acls', ...args);

describe('kafkalite acls', () => {
  test('add, list, remove offline; a broker on the directory enforces them; refused while it runs', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'kafkalite-cli-acls-'));
    try {
      let r = run(dir, '--add', '--allow-principal', 'User:ANONYMOUS', '--operation', 'Write', '--operation', 'Describe', '--topic', 'app-', '--resource-pattern-type', 'prefixed');
      assert.equal(r.status, 0, r.stderr);
      assert.equal(r.stdout.split('\n').filter((l) => l.startsWith('Added ACL')).length, 2);
      r = run(dir, '--add', '--deny-principal', 'User:ANONYMOUS', '--deny-host', '10.1.1.1', '--operation', 'All', '--topic', 'app-secret');
      assert.equal(r.status, 0, r.stderr);
      r = run(dir, '--list', '--topic', 'app-logs', '--resource-pattern-type', 'match');
      assert.deepEqual(r.stdout.trim().split('\n').length, 2);
      assert.match(r.stdout, /ResourcePattern\(resourceType=TOPIC, name=app-, patternType=PREFIXED\): \(principal=User:ANONYMOUS, host=\*, operation=WRITE, permissionType=ALLOW\)/);
      assert.equal(run(dir, '--list').stdout.trim().split('\n').length, 3);

      await withBroker({ dataDir: dir, config: { 'authorizer.class.name': STANDARD_AUTHORIZER_CLASS } }, async (broker) => {
        broker.topics.create('app-logs', 1, {}, broker.logs);
        broker.topics.create('other', 1, {}, broker.logs);
        const produce = (topic: string) => ({ transactionalId: null, acks: -1, timeoutMs: 5000, topicData: [{ name: topic, partitionData: [{ index: 0, records: encodeRecordBatch([{ value: 'v' }]) }] }] });
        const code = async (topic: string) => errorName((await call(broker, ApiKey.Produce, 9, produce(topic))).responses[0].partitionResponses[0].errorCode);
        assert.equal(await code('app-logs'), 'NONE');
        assert.equal(await code('other'), 'TOPIC_AUTHORIZATION_FAILED');
        // a running broker: changes go through the ACL APIs
        const locked = run(dir, '--add', '--allow-principal', 'User:ANONYMOUS', '--operation', 'Write', '--topic', 'other');
        assert.equal(locked.status, 1);
        assert.match(locked.stderr, /locked/);
      });

      r = run(dir, '--remove', '--principal', 'User:ANONYMOUS', '--topic', 'app-', '--resource-pattern-type', 'prefixed');
      assert.equal(r.stdout.split('\n').filter((l) => l.startsWith('Removed ACL')).length, 2);
      assert.equal(run(dir, '--list').stdout.trim().split('\n').length, 1);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  test('usage errors', () => {
    const dir = mkdtempSync(join(tmpdir(), 'kafkalite-cli-acls-'));
    try {
      const refused = [[dir], [dir, '--add', '--topic', 't'], [dir, '--add', '--allow-principal', 'User:a', '--topic', 't'], [dir, '--add', '--allow-principal', 'User:a', '--operation', 'Fly', '--topic', 't'], [dir, '--list', '--topic', 'a', '--group', 'b'], [dir, '--add', '--allow-principal', 'User:a', '--operation', 'Read', '--cluster', '--topic', 'x']];
      // the parser refuses each, and the command exits 2 on the refusal, with the reason on stderr
      for (const args of refused) {
        assert.ok('error' in parseAclsArgs(args), args.join(' '));
        const r = run(...args);
        assert.deepEqual([r.status, r.stdout], [2, ''], args.join(' '));
        assert.match(r.stderr, /^Error: /, args.join(' '));
      }
      // the one child of this file: the built binary exits 2 too, the usage on stderr
      const spawned = spawnCli('acls', ...refused[3]!);
      assert.deepEqual([spawned.status, spawned.stdout], [2, '']);
      assert.equal(spawned.stderr, run(...refused[3]!).stderr);
      const bad = run(dir, '--add', '--allow-principal', 'alice', '--operation', 'Read', '--topic', 't');
      assert.equal(bad.status, 1);
      assert.match(bad.stderr, /principal/);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
