/**
 * `kafkalite dump-log --offsets-decoder / --transaction-log-decoder / --cluster-metadata-decoder`
 * (Kafka `DumpLogSegments` decoders). `__cluster_metadata`: the kafka-tester corpus (a real Kafka 4.0 metadata
 * log), expected payloads spelled out from the raw record bytes. `__consumer_offsets` and
 * `__transaction_state` have no corpus partition, so their records are built here byte by byte
 * from the JSON message definitions (int16 version, then the fields in schema order) and the
 * expected lines are written by hand from those same inputs.
 */
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { encodeRecordBatch } from '../../src/index.js';
import { CORPORA, REPO_ROOT } from '../helpers/paths.js';
import { bytes, cat, i16, i32, i64, str } from '../helpers/classic-encoding.js';
import { tempDir } from '../helpers/storage.js';

const CLI = join(REPO_ROOT, 'bin', 'kafkalite.js');
const E856 = join(CORPORA, 'kafka-tester/@e856b9a/internal/test_helpers/pass_all/kraft-combined-logs');

function run(...args: string[]) {
  return spawnSync(process.execPath, [CLI, 'dump-log', ...args], { encoding: 'utf8' });
}
const recordLines = (out: string) => out.split('\n').filter((l) => l.startsWith('|'));

describe('--cluster-metadata-decoder on the real Kafka metadata log', () => {
  const file = join(E856, '__cluster_metadata-0/00000000000000000000.log');
  it('the bootstrap transaction (batch @91), decoded from its value bytes', () => {
    const res = run('--cluster-metadata-decoder', '--files', file);
    assert.equal(res.status, 0, res.stderr);
    const lines = recordLines(res.stdout);
    // value 01 17 00 | 01 00 12 12 "Bootstrap records": frame 1, type 23 v0, one tagged field (tag 0, 18 bytes: Name)
    // value 01 0c 00 | 11 "metadata.version" 00 14 | 00: FeatureLevelRecord v0, featureLevel 0x0014
    // value 01 15 00 | 00 | 00: type 21 v0, zkMigrationState 0;  value 01 18 00 | 00: type 24 v0, empty
    assert.deepEqual(lines.slice(1, 5), [
      '| offset: 1 CreateTime: 1725272014403 keySize: -1 valueSize: 24 sequence: -1 headerKeys: [] payload: {"type":"BEGIN_TRANSACTION_RECORD","version":0,"data":{"name":"Bootstrap records"}}',
      '| offset: 2 CreateTime: 1725272014403 keySize: -1 valueSize: 23 sequence: -1 headerKeys: [] payload: {"type":"FEATURE_LEVEL_RECORD","version":0,"data":{"name":"metadata.version","featureLevel":20}}',
      '| offset: 3 CreateTime: 1725272014403 keySize: -1 valueSize: 5 sequence: -1 headerKeys: [] payload: {"type":"ZK_MIGRATION_STATE_RECORD","version":0,"data":{"zkMigrationState":0}}',
      '| offset: 4 CreateTime: 1725272014403 keySize: -1 valueSize: 4 sequence: -1 headerKeys: [] payload: {"type":"END_TRANSACTION_RECORD","version":0,"data":{}}',
    ]);
    assert.equal(lines[0], '| offset: 0 CreateTime: 1725272014353 keySize: 4 valueSize: 19 sequence: -1 headerKeys: [] controlType: LEADER_CHANGE(2)');
  });
  it('every data record of the log decodes (116 records, 2 of them LEADER_CHANGE control records)', () => {
    const res = run('--cluster-metadata-decoder', '--json', '--files', file);
    assert.equal(res.status, 0, res.stderr);
    const records = res.stdout
      .trim()
      .split('\n')
      .flatMap((l) => (JSON.parse(l) as { records: { payload?: { type: string } }[] }).records);
    assert.equal(records.length, 116);
    const data = records.filter((r) => r.payload !== undefined);
    assert.equal(data.length, 114);
    for (const r of data) assert.match(r.payload!.type, /^[A-Z_]+_RECORD$/);
  });
  it('the bootstrap snapshot: control records as JSON, the data record decoded', () => {
    const res = run('--cluster-metadata-decoder', '--files', join(E856, 'bootstrap.checkpoint'));
    assert.deepEqual(recordLines(res.stdout), [
      '| offset: 0 CreateTime: 1725272012705 keySize: 4 valueSize: 11 sequence: -1 headerKeys: [] SnapshotHeader {"version":0,"lastContainedLogTimestamp":0}',
      '| offset: 1 CreateTime: 1725272012715 keySize: -1 valueSize: 23 sequence: -1 headerKeys: [] payload: {"type":"FEATURE_LEVEL_RECORD","version":0,"data":{"name":"metadata.version","featureLevel":20}}',
      '| offset: 2 CreateTime: 1725272012716 keySize: 4 valueSize: 3 sequence: -1 headerKeys: [] SnapshotFooter {"version":0}',
    ]);
  });
});

describe('--offsets-decoder and --transaction-log-decoder on records built from the schemas', () => {
  let tmp: { dir: string; cleanup: () => void };
  let offsetsLog: string;
  let txnLog: string;
  before(() => {
    tmp = tempDir('decoders');
    mkdirSync(join(tmp.dir, '__consumer_offsets-7'));
    mkdirSync(join(tmp.dir, '__transaction_state-0'));
    offsetsLog = join(tmp.dir, '__consumer_offsets-7', '00000000000000000000.log');
    txnLog = join(tmp.dir, '__transaction_state-0', '00000000000000000000.log');
    // ConsumerProtocolSubscription v1: topics [orders], userData null, ownedPartitions [orders: 0, 2]
    const subscription = cat(i16(1), i32(1), str('orders'), i32(-1), i32(1), str('orders'), i32(2), i32(0), i32(2));
    // ConsumerProtocolAssignment v0: [orders: 0, 2], userData null
    const assignment = cat(i16(0), i32(1), str('orders'), i32(2), i32(0), i32(2), i32(-1));
    const records = [
      // OffsetCommitKey v1 + OffsetCommitValue v3
      { key: cat(i16(1), str('billing'), str('orders'), i32(2)), value: cat(i16(3), i64(42n), i32(5), str('m'), i64(1_700_000_000_000n)) },
      // OffsetCommitKey v0 + OffsetCommitValue v1 (expireTimestamp)
      { key: cat(i16(0), str('billing'), str('orders'), i32(0)), value: cat(i16(1), i64(7n), str(''), i64(10n), i64(20n)) },
      // a tombstone
      { key: cat(i16(1), str('billing'), str('orders'), i32(2)), value: null },
      // GroupMetadataKey v2 + GroupMetadataValue v3 with one consumer member
      {
        key: cat(i16(2), str('billing')),
        value: cat(
          i16(3), str('consumer'), i32(4), str('range'), str('m-1'), i64(1_700_000_000_500n),
          i32(1), str('m-1'), i16(-1), str('client-1'), str('/10.0.0.1'), i32(300000), i32(45000), bytes(subscription), bytes(assignment),
        ),
      },
    ];
    writeFileSync(offsetsLog, encodeRecordBatch(records.map((r) => ({ ...r, timestamp: 1_700_000_001_000 }))));
    // TransactionLogKey v0 + TransactionLogValue v0: pid 5, epoch 2, timeout 60000, status 1, [foo: 0, 3], times
    const txnValue = cat(i64(5n), i16(2), i32(60000), Buffer.from([1]), i32(1), str('foo'), i32(2), i32(0), i32(3), i64(1_700_000_000_000n), i64(1_699_999_999_000n));
    writeFileSync(
      txnLog,
      encodeRecordBatch([
        { key: cat(i16(0), str('txn-1')), value: cat(i16(0), txnValue), timestamp: 1 },
        { key: cat(i16(0), str('txn-1')), value: null, timestamp: 2 },
      ]),
    );
  });
  after(() => tmp.cleanup());

  it('__consumer_offsets: keys {"type","data"}, values {"version","data"}, <DELETE>, consumer protocol decoded', () => {
    const res = run('--offsets-decoder', '--skip-record-metadata', '--files', offsetsLog);
    assert.equal(res.status, 0, res.stderr);
    assert.deepEqual(recordLines(res.stdout), [
      '| key: {"type":"1","data":{"group":"billing","topic":"orders","partition":2}} payload: {"version":"3","data":{"offset":42,"leaderEpoch":5,"metadata":"m","commitTimestamp":1700000000000}}',
      '| key: {"type":"0","data":{"group":"billing","topic":"orders","partition":0}} payload: {"version":"1","data":{"offset":7,"metadata":"","commitTimestamp":10,"expireTimestamp":20}}',
      '| key: {"type":"1","data":{"group":"billing","topic":"orders","partition":2}} payload: <DELETE>',
      '| key: {"type":"2","data":{"group":"billing"}} payload: {"version":"3","data":{"protocolType":"consumer","generation":4,"protocol":"range","leader":"m-1","currentStateTimestamp":1700000000500,' +
        '"members":[{"memberId":"m-1","groupInstanceId":null,"clientId":"client-1","clientHost":"/10.0.0.1","rebalanceTimeout":300000,"sessionTimeout":45000,' +
        '"subscription":{"topics":["orders"],"userData":null,"ownedPartitions":[{"topic":"orders","partitions":[0,2]}]},' +
        '"assignment":{"assignedPartitions":[{"topic":"orders","partitions":[0,2]}],"userData":null}}]}}',
    ]);
  });

  it('__transaction_state: transaction_metadata key, producerId:… value, <DELETE>', () => {
    const res = run('--transaction-log-decoder', '--files', txnLog);
    assert.equal(res.status, 0, res.stderr);
    const lines = recordLines(res.stdout);
    assert.equal(lines.length, 2);
    assert.match(
      lines[0]!,
      / key: transaction_metadata::transactionalId=txn-1 payload: producerId:5,producerEpoch:2,state=Ongoing,partitions=\[foo-0,foo-3\],txnLastUpdateTimestamp=1700000000000,txnTimeoutMs=60000$/,
    );
    assert.match(lines[1]!, / key: transaction_metadata::transactionalId=txn-1 payload: <DELETE>$/);
  });

  it('--json carries the decoded key and payload', () => {
    const res = run('--offsets-decoder', '--json', '--files', offsetsLog);
    const [batch] = res.stdout.trim().split('\n').map((l) => JSON.parse(l) as { records: { key: unknown; payload: unknown }[] });
    assert.deepEqual(batch!.records[0]!.key, { type: '1', data: { group: 'billing', topic: 'orders', partition: 2 } });
    assert.equal(batch!.records[2]!.payload, '<DELETE>');
  });

  it('a record that is not what the decoder expects: one line naming the file, no stack', () => {
    const res = run('--transaction-log-decoder', '--files', offsetsLog);
    assert.equal(res.status, 1);
    assert.match(res.stderr, /^Error: .*__consumer_offsets-7\/00000000000000000000\.log: Cannot decode __transaction_state key .*\[INVALID_RECORD\]\n$/);
  });

  it('at most one decoder', () => {
    const res = run('--offsets-decoder', '--cluster-metadata-decoder', '--files', offsetsLog);
    assert.equal(res.status, 2);
  });
});
