/**
 * Issue 17 finding 5: Kafka's limits on what a client may send, each over the raw protocol with the
 * hostile input that showed it.
 * - Produce to an internal topic: INVALID_TOPIC_EXCEPTION without a message
 *   (`ReplicaManager.appendToLocalLog`), unless the client id is `__admin_client`
 *   (`KafkaApis.handleProduceRequest`); `__cluster_metadata` is not a topic a client sees
 *   (UNKNOWN_TOPIC_OR_PARTITION, Kafka's metadata cache has no such topic) and CreateTopics refuses
 *   it (`ControllerApis.createTopics`: INVALID_REQUEST).
 * - zstd below Produce v7: UNSUPPORTED_COMPRESSION_TYPE (`ProduceRequest.validateRecords`); a
 *   zstd-configured topic fetched below v10: UNSUPPORTED_COMPRESSION_TYPE for that partition
 *   (`KafkaApis.handleFetchRequest`).
 * - Records whose offsetDelta is not their index in the batch: Kafka has no rejection rule for it
 *   (Kafka 2.4 answered INVALID_RECORD for compressed inner records; KAFKA-9669 made 2.5.1+ rewrite
 *   them instead, and `LogValidator.assignOffsetsNonCompressed` never looked at record offsets):
 *   a compressed batch is rebuilt with dense offsets, an uncompressed one is kept as sent.
 * - A 32,767-character topic name: INVALID_TOPIC_EXCEPTION with the name echoed, and every answer
 *   naming it stays encodable (no string field over 32,767 bytes) on every version.
 */
import assert from 'node:assert/strict';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, test } from 'node:test';
import { errorName } from '../../src/protocol/error-codes.js';
import { encodeRecordBatch, type RecordBatchOptions } from '../../src/record/builder.js';
import { crc32c } from '../../src/record/crc.js';
import type { Broker } from '../../src/broker/broker.js';
import { storedBatches, withBroker } from '../helpers/broker.js';
import { decodeResponseFrame, encodeRequestFrame, RawClient, type Msg } from '../helpers/raw-client.js';

const batch = (values: string[], o: RecordBatchOptions = {}) => encodeRecordBatch(values.map((v, i) => ({ key: `k${i}`, value: v, timestamp: Date.now() + i })), o);

function produceBody(topic: string, records: Buffer, partition = 0): Msg {
  return { transactionalId: null, acks: -1, timeoutMs: 5000, topicData: [{ name: topic, partitionData: [{ index: partition, records }] }] };
}

function fetchBody(topic: string, offset = 0n): Msg {
  return {
    replicaId: -1,
    maxWaitMs: 0,
    minBytes: 1,
    maxBytes: 1 << 20,
    isolationLevel: 0,
    sessionId: 0,
    sessionEpoch: -1,
    topics: [{ topic, partitions: [{ partition: 0, fetchOffset: offset, partitionMaxBytes: 1 << 20 }] }],
  };
}

async function withClient(body: (c: RawClient, broker: Broker) => Promise<void>): Promise<void> {
  await withBroker({}, async (broker) => {
    const c = await RawClient.connect(broker.port);
    try {
      await body(c, broker);
    } finally {
      c.destroy();
    }
  });
}

/** One request under a chosen client id (RawClient.request always sends its own). */
async function requestAs(c: RawClient, clientId: string, apiKey: number, version: number, body: Msg): Promise<Msg> {
  const id = c.correlationId();
  const pending = c.nextFrame();
  c.send(encodeRequestFrame(apiKey, version, id, body, clientId));
  const r = decodeResponseFrame(apiKey, version, await pending);
  assert.equal(r.correlationId, id);
  return r.body;
}

/** The connection still answers: the broker neither closed it nor lost its framing. */
async function stillAnswers(c: RawClient): Promise<void> {
  const r = await c.request(18, 3, { clientSoftwareName: 'raw', clientSoftwareVersion: '1' });
  assert.equal(errorName(r.errorCode), 'NONE');
}

describe('Produce to internal topics', () => {
  for (const topic of ['__consumer_offsets', '__transaction_state']) {
    for (const version of [3, 8, 9]) {
      test(`${topic}, Produce v${version}: INVALID_TOPIC_EXCEPTION, nothing appended`, async () => {
        await withClient(async (c, broker) => {
          broker.topics.create(topic, 1, {}, broker.logs);
          const r = await c.request(0, version, produceBody(topic, batch(['forged coordinator state'])));
          const p = r.responses[0].partitionResponses[0];
          assert.equal(errorName(p.errorCode), 'INVALID_TOPIC_EXCEPTION');
          assert.equal(p.baseOffset, -1n);
          if (version >= 8) assert.equal(p.errorMessage, null, "Kafka's answer carries no message for it");
          assert.equal(broker.logs.getLog(topic, 0)!.logEndOffset, 0n);
          assert.deepEqual(storedBatches(broker.dataDir, topic, 0), []);
        });
      });
    }
  }

  test("the admin client's id may append (Kafka's internalTopicsAllowed)", async () => {
    await withClient(async (c, broker) => {
      broker.topics.create('__consumer_offsets', 1, {}, broker.logs);
      const r = await requestAs(c, '__admin_client', 0, 9, produceBody('__consumer_offsets', batch(['x'])));
      assert.equal(errorName(r.responses[0].partitionResponses[0].errorCode), 'NONE');
      assert.equal(broker.logs.getLog('__consumer_offsets', 0)!.logEndOffset, 1n);
    });
  });

  test('acks=0 to an internal topic: nothing appended, the connection is closed (any acks=0 error)', async () => {
    await withClient(async (c, broker) => {
      broker.topics.create('__consumer_offsets', 1, {}, broker.logs);
      c.send(encodeRequestFrame(0, 9, c.correlationId(), { ...produceBody('__consumer_offsets', batch(['x'])), acks: 0 }));
      assert.equal(await c.closesWithin(10_000), true);
      assert.equal(broker.logs.getLog('__consumer_offsets', 0)!.logEndOffset, 0n);
    });
  });

  test('a user topic beside it in the same request is appended', async () => {
    await withClient(async (c, broker) => {
      broker.topics.create('__transaction_state', 1, {}, broker.logs);
      broker.topics.create('user', 1, {}, broker.logs);
      const r = await c.request(0, 9, {
        transactionalId: null,
        acks: -1,
        timeoutMs: 5000,
        topicData: [
          { name: '__transaction_state', partitionData: [{ index: 0, records: batch(['x']) }] },
          { name: 'user', partitionData: [{ index: 0, records: batch(['y']) }] },
        ],
      });
      assert.deepEqual(r.responses.map((t: Msg) => [t.name, errorName(t.partitionResponses[0].errorCode)]), [
        ['__transaction_state', 'INVALID_TOPIC_EXCEPTION'],
        ['user', 'NONE'],
      ]);
    });
  });

  test('__cluster_metadata: Produce gets UNKNOWN_TOPIC_OR_PARTITION, CreateTopics is refused on every version', async () => {
    await withClient(async (c, broker) => {
      const p = await c.request(0, 9, produceBody('__cluster_metadata', batch(['x'])));
      assert.equal(errorName(p.responses[0].partitionResponses[0].errorCode), 'UNKNOWN_TOPIC_OR_PARTITION');
      for (const version of [2, 4, 5, 7]) {
        for (const validateOnly of [false, true]) {
          const r = await c.request(19, version, { topics: [{ name: '__cluster_metadata', numPartitions: 1, replicationFactor: 1, assignments: [], configs: [] }], timeoutMs: 5000, validateOnly });
          const t = r.topics[0];
          assert.equal(t.name, '__cluster_metadata');
          assert.equal(errorName(t.errorCode), 'INVALID_REQUEST', `v${version}`);
          assert.equal(t.errorMessage, 'Creation of internal topic __cluster_metadata is prohibited.');
        }
      }
      // Metadata's auto-creation goes the same way (Kafka's controller refuses it; kafkalite answers the refusal)
      const m = await c.request(3, 9, { topics: [{ name: '__cluster_metadata' }], allowAutoTopicCreation: true, includeClusterAuthorizedOperations: false, includeTopicAuthorizedOperations: false });
      assert.equal(errorName(m.topics[0].errorCode), 'INVALID_REQUEST');
      assert.equal(broker.topics.get('__cluster_metadata'), undefined);
      // the directory is the KRaft metadata log's (the metadata topic's id), never a topic's log
      assert.equal(broker.logs.getLog('__cluster_metadata', 0), undefined);
      assert.match(readFileSync(join(broker.dataDir, '__cluster_metadata-0', 'partition.metadata'), 'utf8'), /topic_id: AAAAAAAAAAAAAAAAAAAAAQ/);
    });
  });
});

describe('zstd and old protocol versions', () => {
  for (const version of [3, 4, 5, 6]) {
    test(`Produce v${version} with a zstd batch: UNSUPPORTED_COMPRESSION_TYPE, nothing appended`, async () => {
      await withClient(async (c, broker) => {
        broker.topics.create('t', 1, {}, broker.logs);
        const r = await c.request(0, version, produceBody('t', batch(['a', 'b'], { compression: 'zstd' })));
        const p = r.responses[0].partitionResponses[0];
        assert.equal(errorName(p.errorCode), 'UNSUPPORTED_COMPRESSION_TYPE');
        assert.equal(broker.logs.getLog('t', 0)!.logEndOffset, 0n);
        // other codecs on the same version are fine
        const ok = await c.request(0, version, produceBody('t', batch(['a'], { compression: 'lz4' })));
        assert.equal(errorName(ok.responses[0].partitionResponses[0].errorCode), 'NONE');
      });
    });
  }

  test('Produce v7 with a zstd batch is appended', async () => {
    await withClient(async (c, broker) => {
      broker.topics.create('t', 1, {}, broker.logs);
      const r = await c.request(0, 7, produceBody('t', batch(['a', 'b'], { compression: 'zstd' })));
      assert.equal(errorName(r.responses[0].partitionResponses[0].errorCode), 'NONE');
      assert.equal(broker.logs.getLog('t', 0)!.logEndOffset, 2n);
    });
  });

  test('Fetch below v10 from a compression.type=zstd topic: UNSUPPORTED_COMPRESSION_TYPE for that partition; v10+ reads it', async () => {
    await withClient(async (c, broker) => {
      broker.topics.create('z', 1, { 'compression.type': 'zstd' }, broker.logs);
      broker.topics.create('plain', 1, {}, broker.logs);
      for (const t of ['z', 'plain']) {
        const r = await c.request(0, 9, produceBody(t, batch(['a', 'b'])));
        assert.equal(errorName(r.responses[0].partitionResponses[0].errorCode), 'NONE');
      }
      for (const version of [4, 9]) {
        const r = await c.request(1, version, { ...fetchBody('z'), topics: [...fetchBody('z').topics, ...fetchBody('plain').topics] });
        const [z, plain] = r.responses.map((t: Msg) => t.partitions[0]);
        assert.equal(errorName(z.errorCode), 'UNSUPPORTED_COMPRESSION_TYPE', `v${version}`);
        assert.equal(z.highWatermark, -1n);
        assert.equal(z.records?.length ?? 0, 0, 'no records for that partition');
        assert.equal(errorName(plain.errorCode), 'NONE');
        assert.ok(plain.records.length > 0, 'the other partition is served');
      }
      // the conversion replaces whatever the read gave, an error included
      const oor = await c.request(1, 9, fetchBody('z', 100n));
      assert.equal(errorName(oor.responses[0].partitions[0].errorCode), 'UNSUPPORTED_COMPRESSION_TYPE');
      const oor10 = await c.request(1, 10, fetchBody('z', 100n));
      assert.equal(errorName(oor10.responses[0].partitions[0].errorCode), 'OFFSET_OUT_OF_RANGE');
      for (const version of [10, 12]) {
        const r = await c.request(1, version, fetchBody('z'));
        const z = r.responses[0].partitions[0];
        assert.equal(errorName(z.errorCode), 'NONE');
        assert.equal(z.highWatermark, 2n);
        assert.equal(z.records.readInt16BE(21) & 0x07, 4, 'the stored batch is zstd (attributes codec 4)');
      }
    });
  });

  test("Fetch below v10 of zstd batches in a compression.type=producer topic: returned, as Kafka decides on the topic's config", async () => {
    await withClient(async (c, broker) => {
      broker.topics.create('p', 1, {}, broker.logs);
      const r = await c.request(0, 7, produceBody('p', batch(['a'], { compression: 'zstd' })));
      assert.equal(errorName(r.responses[0].partitionResponses[0].errorCode), 'NONE');
      const f = await c.request(1, 9, fetchBody('p'));
      assert.equal(errorName(f.responses[0].partitions[0].errorCode), 'NONE');
      assert.ok(f.responses[0].partitions[0].records.length > 0);
    });
  });
});

describe('a 32,767-character topic name', () => {
  const longName = 'a'.repeat(32767);

  for (const version of [2, 3, 4, 5, 6, 7]) {
    test(`CreateTopics v${version}: INVALID_TOPIC_EXCEPTION with the name echoed, and the connection keeps working`, async () => {
      await withClient(async (c, broker) => {
        const r = await c.request(19, version, {
          topics: [
            { name: longName, numPartitions: 1, replicationFactor: 1, assignments: [], configs: [] },
            { name: 'fine', numPartitions: 1, replicationFactor: 1, assignments: [], configs: [] },
          ],
          timeoutMs: 5000,
          validateOnly: false,
        });
        const [bad, fine] = r.topics;
        assert.equal(bad.name, longName);
        assert.equal(errorName(bad.errorCode), 'INVALID_TOPIC_EXCEPTION');
        assert.ok(Buffer.byteLength(bad.errorMessage) <= 32767, 'the message fits a string field');
        assert.match(bad.errorMessage, /^Topic name is invalid: the length of 'a+.*' is longer than the max allowed length 249$/);
        assert.equal(errorName(fine.errorCode), 'NONE');
        assert.equal(broker.topics.get(longName), undefined);
        await stillAnswers(c);
      });
    });
  }

  for (const version of [3, 8, 9]) {
    test(`Produce v${version} naming it: UNKNOWN_TOPIC_OR_PARTITION, encodable`, async () => {
      await withClient(async (c) => {
        const r = await c.request(0, version, produceBody(longName, batch(['x'])));
        assert.equal(r.responses[0].name, longName);
        assert.equal(errorName(r.responses[0].partitionResponses[0].errorCode), 'UNKNOWN_TOPIC_OR_PARTITION');
        if (version >= 8) assert.ok(Buffer.byteLength(r.responses[0].partitionResponses[0].errorMessage ?? '') <= 32767);
        await stillAnswers(c);
      });
    });
  }

  for (const version of [1, 4, 9]) {
    test(`Metadata v${version} naming it: INVALID_TOPIC_EXCEPTION, encodable`, async () => {
      await withClient(async (c) => {
        const r = await c.request(3, version, { topics: [{ topicId: Buffer.alloc(16), name: longName }], allowAutoTopicCreation: true, includeClusterAuthorizedOperations: false, includeTopicAuthorizedOperations: false });
        const t = r.topics[0];
        assert.equal(t.name, longName);
        // KafkaApis.getTopicMetadata: Topic.validate fails, with or without auto-creation
        assert.equal(errorName(t.errorCode), 'INVALID_TOPIC_EXCEPTION');
        await stillAnswers(c);
      });
    });
  }
});

describe('records whose offsetDelta is not their index (Kafka: no rejection)', () => {
  /** A v2 batch of 3 records with offsetDeltas 0, 5, 7 under a header that says lastOffsetDelta 2 (so count and range agree). */
  function lyingDeltas(compression: 'none' | 'gzip' | 'zstd'): Buffer {
    const b = encodeRecordBatch([0, 5, 7].map((offsetDelta, i) => ({ key: `k${i}`, value: `v${i}`, timestamp: Date.now(), offsetDelta })), { compression });
    b.writeInt32BE(2, 23); // lastOffsetDelta
    b.writeUInt32BE(crc32c(b, 21, b.length) >>> 0, 17); // the CRC covers attributes..end
    return b;
  }

  for (const compression of ['gzip', 'zstd'] as const) {
    test(`${compression}: accepted and rebuilt with dense offsets (LogValidator: inPlaceAssignment = false)`, async () => {
      await withClient(async (c, broker) => {
        broker.topics.create('t', 1, {}, broker.logs);
        const r = await c.request(0, 9, produceBody('t', lyingDeltas(compression)));
        const p = r.responses[0].partitionResponses[0];
        assert.equal(errorName(p.errorCode), 'NONE');
        assert.deepEqual(storedBatches(broker.dataDir, 't', 0).flatMap((b) => b.records.map((x) => x.offset)), [0n, 1n, 2n]);
      });
    });
  }

  test('uncompressed: accepted and kept as sent (assignOffsetsNonCompressed sets only base and last offset)', async () => {
    await withClient(async (c, broker) => {
      broker.topics.create('t', 1, {}, broker.logs);
      const r = await c.request(0, 9, produceBody('t', lyingDeltas('none')));
      assert.equal(errorName(r.responses[0].partitionResponses[0].errorCode), 'NONE');
      const [stored] = storedBatches(broker.dataDir, 't', 0);
      assert.equal(stored!.lastOffset, 2n);
      assert.deepEqual(stored!.records.map((x) => x.offset), [0n, 5n, 7n]);
      assert.equal(broker.logs.getLog('t', 0)!.logEndOffset, 3n, 'the log end follows the batch header, as in Kafka');
    });
  });
});
