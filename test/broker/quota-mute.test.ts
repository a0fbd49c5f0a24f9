/**
 * A throttled answer mutes its connection (Kafka `ClientQuotaManager.throttle` and the channel's
 * THROTTLE_STARTED / THROTTLE_ENDED), over a real socket with the broker's clock a ManualTimer:
 * Produce v9 over its producer_byte_rate gets its answer at once with throttle_time_ms, and the
 * connection's next request is answered only once the throttle time has passed on the clock;
 * Produce v5 (before KIP-219, a client that does not back off) gets its answer itself only then.
 * Another connection is not muted meanwhile.
 */
import assert from 'node:assert/strict';
import { setTimeout as sleep } from 'node:timers/promises';
import { describe, test } from 'node:test';
import { errorName } from '../../src/protocol/error-codes.js';
import { encodeRecordBatch } from '../../src/record/builder.js';
import { createLogger } from '../../src/broker/logger.js';
import { withBroker } from '../helpers/broker.js';
import { ManualTimer } from '../helpers/manual-timer.js';
import { decodeResponseFrame, encodeRequestFrame, RawClient } from '../helpers/raw-client.js';
import { call } from './group/call.js';

const produceBody = (value: string) => ({
  transactionalId: null,
  acks: -1,
  timeoutMs: 5000,
  topicData: [{ name: 'q', partitionData: [{ index: 0, records: encodeRecordBatch([{ value }]) }] }],
});

/** Whether the promise settles while the test lets the event loop run (no clock moves meanwhile). */
async function settlesSoon(p: Promise<unknown>): Promise<boolean> {
  let settled = false;
  void p.then(() => (settled = true), () => (settled = true));
  await sleep(200);
  return settled;
}

describe('quota throttles mute the connection', () => {
  for (const [version, answerWaits] of [[9, false], [5, true]] as const) {
    test(`Produce v${version} over producer_byte_rate: ${answerWaits ? 'the answer itself waits out the throttle' : 'answered at once, the next request waits for the throttle to end'}`, async () => {
      const timer = new ManualTimer();
      await withBroker({ timer }, async (broker) => {
        broker.topics.create('q', 1, {}, broker.logs);
        // every client id (the default entity): 1000 bytes/s
        const r = await call(broker, 49, 1, { entries: [{ entity: [{ entityType: 'client-id', entityName: null }], ops: [{ key: 'producer_byte_rate', value: 1000, remove: false }] }], validateOnly: false });
        assert.equal(errorName(r.entries[0].errorCode), 'NONE');
        const slow = await RawClient.connect(broker.port);
        const other = await RawClient.connect(broker.port);
        try {
          const produced = slow.request(0, version, produceBody('x'.repeat(20_000)));
          let throttleMs: number;
          if (answerWaits) {
            assert.equal(await settlesSoon(produced), false, 'the answer waits for the throttle');
            timer.advance(999);
            assert.equal(await settlesSoon(produced), false, 'still within the throttle');
            timer.advance(1);
            const a = await produced;
            throttleMs = a.throttleTimeMs;
          } else {
            const a = await produced;
            throttleMs = a.throttleTimeMs;
            assert.equal(errorName(a.responses[0].partitionResponses[0].errorCode), 'NONE');
            const next = slow.request(18, 3, { clientSoftwareName: 'raw', clientSoftwareVersion: '1' });
            // another connection is served meanwhile
            assert.equal(errorName((await other.request(18, 3, { clientSoftwareName: 'raw', clientSoftwareVersion: '1' })).errorCode), 'NONE');
            assert.equal(await settlesSoon(next), false, 'the muted connection takes no request');
            timer.advance(throttleMs - 1);
            assert.equal(await settlesSoon(next), false, 'still muted');
            timer.advance(1);
            assert.equal(errorName((await next).errorCode), 'NONE');
          }
          assert.equal(throttleMs, 1000);
          // the record was appended once, whatever the wait
          assert.equal(broker.logs.getLog('q', 0)?.logEndOffset, 1n);
        } finally {
          slow.destroy();
          other.destroy();
        }
      });
    });
  }

  test('a broker closed while a connection is muted closes at once, its queued request dropped without an error', async () => {
    const timer = new ManualTimer();
    const errors: string[] = [];
    const logger = createLogger('error', (line) => errors.push(line));
    await withBroker({ timer, logger }, async (broker) => {
      broker.topics.create('q', 1, {}, broker.logs);
      const r = await call(broker, 49, 1, { entries: [{ entity: [{ entityType: 'client-id', entityName: null }], ops: [{ key: 'producer_byte_rate', value: 1000, remove: false }] }], validateOnly: false });
      assert.equal(errorName(r.entries[0].errorCode), 'NONE');
      const slow = await RawClient.connect(broker.port);
      try {
        // sent together: the second is queued when the first's throttle mutes the connection (the clock never ends it)
        const answered = slow.nextFrame();
        slow.send([encodeRequestFrame(0, 9, 1, produceBody('x'.repeat(20_000))), encodeRequestFrame(18, 3, 2, { clientSoftwareName: 'raw', clientSoftwareVersion: '1' })]);
        assert.equal(decodeResponseFrame(0, 9, await answered).body.throttleTimeMs, 1000);
        const closed = broker.close();
        assert.equal(await Promise.race([closed.then(() => true), sleep(10_000).then(() => false)]), true, 'the close does not wait for the throttle to end');
        assert.deepEqual(errors, []);
      } finally {
        slow.destroy();
      }
    });
  });
});
