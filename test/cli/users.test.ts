/**
 * `kafkalite users` on a data directory, as kafka-configs.sh --entity-type users: add with
 * `--add-config 'SCRAM-SHA-256=[iterations=8192,password=...]'` and with `--add-config-file`, list
 * in ConfigCommand's words, remove one mechanism or all; a broker started on the directory logs
 * kafkajs in with the credentials the command stored (SCRAM-SHA-256 and -512) and refuses a wrong
 * password; changes are refused while the broker holds the directory; bad input is a usage error.
 */
import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, test } from 'node:test';
import { Kafka, logLevel, type SASLOptions } from 'kafkajs';
import { parseAddConfig, parseUsersArgs } from '../../src/cli/users.js';
import { SCRAM_CREDENTIALS_FILE } from '../../src/broker/security/scram-store.js';
import { withBroker } from '../helpers/broker.js';
import { runCli, spawnCli } from '../helpers/cli.js';

// in-process (runCli); the one spawned run below proves the binary's exit code
const run = (...args: string[]) => runCli('users', ...args);

describe('kafkalite users', () => {
  test('add, list, remove offline; a broker on the directory authenticates with them; refused while it runs', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'kafkalite-cli-users-'));
    try {
      let r = run(dir, 'add', '--entity-name', 'alice', '--add-config', 'SCRAM-SHA-256=[iterations=8192,password=alice-secret],SCRAM-SHA-512=[password=alice-secret]');
      assert.equal(r.status, 0, r.stderr);
      assert.equal(r.stdout, 'Completed updating config for user alice.\n');
      const file = join(dir, '..', `bob-${process.pid}.properties`);
      writeFileSync(file, '# bob\nSCRAM-SHA-512=[password=bob,with=commas]\n');
      r = run(dir, 'add', '--entity-name', 'bob', '--add-config-file', file);
      rmSync(file);
      assert.equal(r.status, 0, r.stderr);
      r = run(dir, 'list');
      assert.equal(r.stdout, [
        "SCRAM credential configs for user-principal 'alice' are SCRAM-SHA-256=iterations=8192, SCRAM-SHA-512=iterations=4096",
        "SCRAM credential configs for user-principal 'bob' are SCRAM-SHA-512=iterations=4096",
        '',
      ].join('\n'));
      // no password is stored
      assert.doesNotMatch(readFileSync(join(dir, SCRAM_CREDENTIALS_FILE), 'utf8'), /alice-secret|bob,with/);

      const config = { listeners: 'SASL_PLAINTEXT://127.0.0.1:0', 'connection.failed.authentication.delay.ms': '0' };
      await withBroker({ dataDir: dir, config }, async (broker) => {
        const login = async (sasl: SASLOptions): Promise<void> => {
          const admin = new Kafka({ brokers: [broker.listenerBootstrap('SASL_PLAINTEXT')], logLevel: logLevel.NOTHING, retry: { retries: 0 }, sasl }).admin();
          try {
            await admin.connect();
            await admin.listTopics();
          } finally {
            await admin.disconnect();
          }
        };
        await login({ mechanism: 'scram-sha-256', username: 'alice', password: 'alice-secret' });
        await login({ mechanism: 'scram-sha-512', username: 'alice', password: 'alice-secret' });
        await login({ mechanism: 'scram-sha-512', username: 'bob', password: 'bob,with=commas' });
        await assert.rejects(login({ mechanism: 'scram-sha-256', username: 'alice', password: 'wrong' }), /invalid credentials/);
        await assert.rejects(login({ mechanism: 'scram-sha-256', username: 'bob', password: 'bob,with=commas' }), /invalid credentials/);
        const locked = run(dir, 'add', '--entity-name', 'carol', '--add-config', 'SCRAM-SHA-256=[password=c]');
        assert.equal(locked.status, 1);
        assert.match(locked.stderr, /AlterUserScramCredentials/);
        // listing reads while the broker runs
        assert.equal(run(dir, 'list', '--entity-name', 'bob').status, 0);
      });

      r = run(dir, 'remove', '--entity-name', 'alice', '--delete-config', 'SCRAM-SHA-512');
      assert.equal(r.status, 0, r.stderr);
      assert.equal(run(dir, 'list', '--entity-name', 'alice').stdout, "SCRAM credential configs for user-principal 'alice' are SCRAM-SHA-256=iterations=8192\n");
      r = run(dir, 'remove', '--entity-name', 'alice', '--delete-config', 'SCRAM-SHA-512');
      assert.equal(r.status, 1);
      assert.match(r.stderr, /Attempt to delete a user credential that does not exist/);
      assert.equal(run(dir, 'remove', '--entity-name', 'bob').status, 0);
      assert.equal(run(dir, 'remove', '--entity-name', 'alice').status, 0);
      assert.equal(run(dir, 'list').stdout, '');
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  test('usage errors: ConfigCommand\'s checks of iterations and config names, missing user or action', () => {
    const err = (...args: string[]) => {
      const r = parseUsersArgs(args);
      return 'error' in r ? r.error : undefined;
    };
    assert.match(err('d', 'add', '--entity-name', 'a', '--add-config', 'SCRAM-SHA-256=[iterations=100,password=x]')!, /Iterations 100 is less than the minimum 4096 required for SCRAM-SHA-256/);
    assert.match(err('d', 'add', '--entity-name', 'a', '--add-config', 'SCRAM-SHA-256=[iterations=20000,password=x]')!, /maximum 16384/);
    assert.match(err('d', 'add', '--entity-name', 'a', '--add-config', 'consumer_byte_rate=1024')!, /only SCRAM credential configs/);
    assert.match(err('d', 'add', '--entity-name', 'a', '--add-config', 'SCRAM-SHA-256=[iterations=5000]')!, /Invalid credential property/);
    assert.match(err('d', 'add', '--add-config', 'SCRAM-SHA-256=[password=x]')!, /needs --entity-name/);
    assert.match(err('d', 'remove', '--entity-name', 'a', '--delete-config', 'PLAIN')!, /only SCRAM credential configs/);
    assert.match(err('d', 'rename')!, /unknown action rename/);
    assert.match(err('d')!, /expected a data directory/);
    assert.match(err('d', 'list', '--add-config', 'x=y')!, /go with add/);
    const ok = parseUsersArgs(['d', 'add', '--entity-name', 'a', '--add-config', 'SCRAM-SHA-512=[password=p]']);
    assert.ok(!('error' in ok) && !('help' in ok));
    assert.deepEqual(ok.upsertions, [{ mech: 'SCRAM-SHA-512', iterations: 4096, password: 'p' }]);
    // commas inside brackets stay in the value (ConfigCommand's split)
    assert.deepEqual([...(parseAddConfig('SCRAM-SHA-256=[iterations=4096,password=a,b],SCRAM-SHA-512=[password=c]') as Map<string, string>)], [
      ['SCRAM-SHA-256', 'iterations=4096,password=a,b'],
      ['SCRAM-SHA-512', 'password=c'],
    ]);
    assert.equal(spawnCli('users', '/nonexistent-dir', 'list').status, 1);
  });
});
