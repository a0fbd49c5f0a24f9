/**
 * kafka-python 2.0.2 (KafkaAdminClient) against the broker's ACL APIs: create_acls (CreateAcls 30)
 * with a valid and an invalid binding, describe_acls (DescribeAcls 29) with a MATCH filter, and
 * delete_acls (DeleteAcls 31). Then enforcement, for kafka-python's and confluent-kafka 1.7.0's
 * (librdkafka 2.0.2) producers: with the authorizer on and allow.everyone.if.no.acl.found=false, an
 * anonymous PLAINTEXT producer gets TOPIC_AUTHORIZATION_FAILED until an ACL for User:ANONYMOUS
 * allows WRITE; the ACL is created through the API by a connection whose principal is a super user
 * (here User:ANONYMOUS itself: the test's clients are all PLAINTEXT) — so the enforcement broker is
 * a second one over the same data dir, without that super user, which reloads the persisted ACLs.
 * (confluent-kafka-python 1.7.0 has no ACL admin calls; they came in 1.9.0.)
 */
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, test } from 'node:test';
import { STANDARD_AUTHORIZER_CLASS } from '../../../src/broker/auth/config.js';
import { errorName } from '../../../src/protocol/error-codes.js';
import { withBroker } from '../../helpers/broker.js';
import { runPythonAsync } from '../../helpers/python-peer.js';

// eslint-disable-next-line @typescript-eslint/no-explicit-any
type Result = any;

const AUTHZ = { 'authorizer.class.name': STANDARD_AUTHORIZER_CLASS, 'allow.everyone.if.no.acl.found': 'false' };
const acl = (name: string, operation: string, pattern_type = 'LITERAL', permission = 'ALLOW', principal = 'User:ANONYMOUS') =>
  ({ resource_type: 'TOPIC', name, pattern_type, principal, host: '*', operation, permission });

describe('kafka-python ACL admin calls, and produce enforcement for kafka-python and confluent-kafka', () => {
  test('create_acls, describe_acls, delete_acls; produce denied until an ACL allows it', async () => {
    const dataDir = mkdtempSync(join(tmpdir(), 'kafkalite-acls-py-'));
    try {
      await withBroker({ dataDir, config: { ...AUTHZ, 'super.users': 'User:ANONYMOUS' } }, async (broker) => {
        broker.topics.create('audit', 1, {}, broker.logs);
        const { results: r } = await runPythonAsync<{ results: Result[] }>('broker_acls.py', {
          client: 'kafka-python',
          bootstrap: broker.bootstrap,
          steps: [
            { op: 'create_acls', acls: [acl('orders', 'READ'), acl('ord', 'WRITE', 'PREFIXED'), acl('audit', 'WRITE', 'LITERAL', 'DENY', 'User:bob'), { ...acl('x', 'READ'), resource_type: 'CLUSTER' }] },
            { op: 'describe_acls', filter: { ...acl('orders', 'ANY', 'MATCH', 'ANY'), principal: null, host: null } },
            { op: 'delete_acls', filters: [{ ...acl('audit', 'ANY', 'ANY', 'ANY'), principal: null, host: null }] },
            { op: 'describe_acls', filter: { ...acl(null as unknown as string, 'ANY', 'ANY', 'ANY'), resource_type: 'ANY', principal: null, host: null } },
          ],
        }, { timeoutMs: 90_000 });
        assert.deepEqual(r[0].errors.map((e: number | null) => (e === null ? null : errorName(e))), [null, null, null, 'INVALID_REQUEST']);
        assert.deepEqual(r[1].acls.map((a: Result) => `${a.name}/${a.pattern_type}/${a.operation}`).sort(), ['ord/PREFIXED/WRITE', 'orders/LITERAL/READ']);
        assert.deepEqual(r[2].deleted, [[acl('audit', 'WRITE', 'LITERAL', 'DENY', 'User:bob')]]);
        assert.equal(r[3].acls.length, 2);
      });
      // the enforcement broker: no super user; the ACLs persisted above apply to topics orders/ord*
      await withBroker({ dataDir, config: AUTHZ }, async (broker) => {
        // WRITE (which implies DESCRIBE) but not CREATE: the topic must exist
        broker.topics.create('ord-1', 1, {}, broker.logs);
        for (const client of ['kafka-python', 'confluent']) {
          const { results: r } = await runPythonAsync<{ results: Result[] }>('broker_acls.py', {
            client,
            bootstrap: broker.bootstrap,
            steps: [{ op: 'produce', topic: 'audit', value: 'denied' }, { op: 'produce', topic: 'ord-1', value: `allowed-${client}` }],
          }, { timeoutMs: 90_000 });
          if (client === 'kafka-python') {
            // kafka-python 2.0.2 keeps waiting for metadata that answers TOPIC_AUTHORIZATION_FAILED
            // until max_block_ms (KafkaTimeoutError); the broker's answer is read through its admin client
            assert.deepEqual([r[0].error, errorName(r[0].metadata_error)], ['KafkaTimeoutError', 'TOPIC_AUTHORIZATION_FAILED']);
          } else {
            assert.equal(errorName(r[0].error), 'TOPIC_AUTHORIZATION_FAILED', `${client}: ${JSON.stringify(r[0])}`);
          }
          assert.equal(typeof r[1].offset, 'number', `${client}: ${JSON.stringify(r[1])}`);
        }
        assert.equal(broker.logs.getLog('audit', 0)!.logEndOffset, 0n);
      });
    } finally {
      rmSync(dataDir, { recursive: true, force: true });
    }
  });
});
