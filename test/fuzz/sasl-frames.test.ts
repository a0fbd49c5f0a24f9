/**
 * Hostile SASL input on a SASL_PLAINTEXT listener (PLAIN, SCRAM-SHA-256/512, OAUTHBEARER), seeded:
 * SaslHandshake and SaslAuthenticate frames with bytes flipped, cut short, extended or their
 * version re-pointed; well-formed SaslAuthenticate frames with random auth bytes after a real
 * handshake; bare v0 tokens of random bytes; and well-formed requests of other APIs (random field
 * values from the schemas, plus CreateTopics / Produce naming a sentinel topic) sent before
 * authentication or in the middle of an exchange. Kafka's SaslServerAuthenticator answers such
 * input with an error response and a close, or closes at once; it never hands a request of another
 * API to its handler before authentication.
 *
 * Each case runs on its own connection and ends with a terminator frame (an API key no schema
 * has); the broker must close every connection (no hang), every frame it sends back must carry a
 * correlation id the case sent (or be a v0 bare token), no handler may fail (nothing at error
 * level), and afterwards the sentinel topic does not exist, a good SCRAM login still works, and
 * `verify` is clean (withBroker).
 *
 * The same cases run over a SASL_SSL listener (startBroker's self-signed TLS), and Kafka frames or
 * random bytes sent to that port without TLS are closed.
 *
 * Seed: KAFKALITE_FUZZ_SEED; cases: KAFKALITE_SASL_FUZZ_CASES.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { ApiKey } from '../../src/protocol/api-keys.js';
import { errorName } from '../../src/protocol/error-codes.js';
import { SaslAuthenticate } from '../../src/protocol/schemas/sasl-authenticate.js';
import { SaslHandshake } from '../../src/protocol/schemas/sasl-handshake.js';
import { schemaForApi } from '../../src/protocol/schemas/index.js';
import { withBroker } from '../helpers/broker.js';
import { encodeRequestFrame, encodeRequestPayload, RawClient, sizePrefixed, type Msg } from '../helpers/raw-client.js';
import { Rng } from '../helpers/ref.js';
import { tierCount } from '../helpers/tier.js';
import { randomMessage } from '../protocol/value-gen.js';

const SEED = Number(process.env.KAFKALITE_FUZZ_SEED ?? 0x5a51);
const CASES = Number(process.env.KAFKALITE_SASL_FUZZ_CASES ?? tierCount(3_000, 400));
const SENTINEL = 'sasl-fuzz-sentinel';
const MECHANISMS = ['PLAIN', 'SCRAM-SHA-256', 'SCRAM-SHA-512', 'OAUTHBEARER'];
/** An API key no schema has: every broker state closes the connection on it. */
const TERMINATOR = sizePrefixed(Buffer.from([0x7f, 0xff, 0, 0, 0x7f, 0x7f, 0x7f, 0x7f, 0xff, 0xff]));

const CONFIG = {
  listeners: 'SASL_PLAINTEXT://127.0.0.1:0',
  'sasl.enabled.mechanisms': MECHANISMS.join(','),
  'connection.failed.authentication.delay.ms': '0',
  'auto.create.topics.enable': 'true',
};

/** Auth bytes a real client of each mechanism would send first, or random bytes. */
function authBytes(rng: Rng, mechanism: string): Buffer {
  if (rng.bool(0.3)) return rng.bytes(rng.int(80));
  switch (mechanism) {
    case 'PLAIN':
      return Buffer.from(rng.pick(['\0alice\0alice-secret', '\0alice\0wrong', 'alice\0alice\0alice-secret', '\0\0', '']));
    case 'OAUTHBEARER':
      return Buffer.from(rng.pick(['n,,\x01auth=Bearer e30.e30.\x01\x01', 'n,,\x01auth=Bearer x\x01\x01', 'n,,\x01\x01', '']));
    default:
      return Buffer.from(rng.pick(['n,,n=alice,r=abcdef', 'n,,n=nobody,r=x', 'p=x,,n=alice,r=y', 'c=biws,r=abc,p=AAAA', 'n,a=bob,n=alice,r=z']));
  }
}

/** A frame's payload with hostile edits: flipped bytes, cut short, extended, or a re-pointed version. */
function mutate(rng: Rng, payload: Buffer): Buffer {
  const b = Buffer.from(payload);
  switch (rng.int(4)) {
    case 0:
      for (let i = 0, n = 1 + rng.int(4); i < n && b.length > 0; i++) b[rng.int(b.length)] = rng.int(256);
      return b;
    case 1:
      return b.subarray(0, rng.int(b.length));
    case 2:
      return Buffer.concat([b, rng.bytes(1 + rng.int(40))]);
    default:
      if (b.length >= 4) b.writeInt16BE(rng.range(-1, 40), 2);
      return b;
  }
}

/** A well-formed request of any API with a schema, random field values; CreateTopics / Produce name the sentinel. */
function otherRequest(rng: Rng, correlationId: number): Buffer {
  if (rng.bool(0.4)) {
    const createTopics = schemaForApi(ApiKey.CreateTopics)!;
    const body = randomMessage(createTopics.request, 4, rng) as Msg;
    // a request that would create the sentinel, were it handled
    body.topics = [{ name: SENTINEL, numPartitions: 1, replicationFactor: 1, assignments: [], configs: [] }];
    body.validateOnly = false;
    body.timeoutMs = 5000;
    return encodeRequestFrame(ApiKey.CreateTopics, 4, correlationId, body);
  }
  const keys = Object.values(ApiKey).filter((k) => k !== ApiKey.ApiVersions && k !== ApiKey.SaslHandshake && k !== ApiKey.SaslAuthenticate && schemaForApi(k) !== undefined);
  const key = rng.pick(keys);
  const api = schemaForApi(key)!;
  const [lo, hi] = api.request.validVersions;
  const version = rng.range(lo, hi);
  return encodeRequestFrame(key, version, correlationId, randomMessage(api.request, version, rng));
}

interface CaseOutcome {
  kind: string;
  closed: boolean;
  strayFrames: number;
}

/** One case, bounded: a broker that neither answers nor closes within the guard is a hang (closed: false). */
async function runCase(connect: () => Promise<RawClient>, rng: Rng): Promise<CaseOutcome> {
  const c = await connect();
  let timer: NodeJS.Timeout | undefined;
  const hang = new Promise<CaseOutcome>((resolve) => (timer = setTimeout(() => resolve({ kind: 'hang guard', closed: false, strayFrames: 0 }), 30_000)));
  try {
    return await Promise.race([playCase(c, rng), hang]);
  } finally {
    clearTimeout(timer);
    c.destroy();
  }
}

async function playCase(c: RawClient, rng: Rng): Promise<CaseOutcome> {
  const sent = new Set<number>();
  let bare = false;
  const id = (): number => {
    const x = c.correlationId();
    sent.add(x);
    return x;
  };
  /** Kafka answers with the correlation id the frame carries, mutated or not. */
  const sendPayload = (payload: Buffer): void => {
    if (payload.length >= 8) sent.add(payload.readInt32BE(4));
    c.send(sizePrefixed(payload));
  };
  const mechanism = rng.pick([...MECHANISMS, 'GSSAPI', '', 'x'.repeat(rng.int(300))]);
  const kinds = ['handshake-mutated', 'authenticate-mutated', 'authenticate-random', 'v0-token', 'before-auth', 'mid-exchange'] as const;
  const kind = rng.pick(kinds);
  try {
    const handshake = async (version: number): Promise<void> => {
      const answer = await c.request(ApiKey.SaslHandshake, version, { mechanism: rng.pick(MECHANISMS) });
      assert.equal(errorName(answer.errorCode), 'NONE');
    };
    switch (kind) {
      case 'handshake-mutated': {
        const v = rng.int(2);
        sendPayload(mutate(rng, Buffer.concat(encodeRequestPayload(ApiKey.SaslHandshake, v, id(), { mechanism }))));
        break;
      }
      case 'authenticate-mutated':
      case 'authenticate-random': {
        await handshake(1);
        const [lo, hi] = SaslAuthenticate.request.validVersions;
        const v = rng.range(lo, hi);
        const body = kind === 'authenticate-random' ? { ...randomMessage(SaslAuthenticate.request, v, rng), authBytes: rng.bytes(rng.int(200)) } : { authBytes: authBytes(rng, mechanism) };
        const payload = Buffer.concat(encodeRequestPayload(ApiKey.SaslAuthenticate, v, id(), body));
        sendPayload(kind === 'authenticate-mutated' ? mutate(rng, payload) : payload);
        break;
      }
      case 'v0-token':
        await handshake(0);
        bare = true;
        c.send(sizePrefixed(rng.bool() ? rng.bytes(rng.int(120)) : authBytes(rng, mechanism)));
        break;
      case 'before-auth':
        c.send(otherRequest(rng, id()));
        break;
      case 'mid-exchange':
        await handshake(1);
        c.send(otherRequest(rng, id()));
        break;
    }
    c.send(TERMINATOR);
    const closed = await c.closesWithin(20_000);
    const strayFrames = bare ? 0 : c.unclaimed.filter((f) => f.length < 4 || !sent.has(f.readInt32BE(0))).length;
    return { kind, closed, strayFrames };
  } catch (e) {
    return { kind: `${kind}: ${String(e)}`, closed: c.isClosed, strayFrames: 0 };
  }
}

test(`hostile SASL frames: ${CASES} cases get Kafka's answer or a closed connection, never a handler (seed ${SEED})`, { timeout: 600_000 }, async () => {
  const errors: string[] = [];
  const logger = { level: 'warn' as const, debug() {}, info() {}, warn() {}, error: (m: string) => void errors.push(m), warnThrottled() {} };
  await withBroker({ config: CONFIG, users: { alice: 'alice-secret' }, logger }, async (broker) => {
    const rng = new Rng(SEED);
    const kinds = new Map<string, number>();
    const PARALLEL = 16;
    for (let done = 0; done < CASES; done += PARALLEL) {
      const batch = Array.from({ length: Math.min(PARALLEL, CASES - done) }, () => new Rng(rng.int(0x7fffffff)));
      const connect = (): Promise<RawClient> => RawClient.connect(broker.advertisedEndpoint('SASL_PLAINTEXT').port);
      for (const o of await Promise.all(batch.map((r) => runCase(connect, r)))) {
        kinds.set(o.kind, (kinds.get(o.kind) ?? 0) + 1);
        assert.ok(o.closed, `${o.kind}: the broker left the connection open`);
        assert.equal(o.strayFrames, 0, `${o.kind}: a frame with a correlation id the case never sent`);
      }
    }
    assert.deepEqual(errors, [], 'a handler failed (logged at error level)');
    assert.equal(kinds.size, 6, `every kind of case ran: ${[...kinds].join(' ')}`);
    // nothing reached a handler before authentication: the sentinel topic was never created
    const ok = await RawClient.connect(broker.advertisedEndpoint('SASL_PLAINTEXT').port);
    try {
      assert.equal(errorName((await ok.request(ApiKey.SaslHandshake, 1, { mechanism: 'PLAIN' })).errorCode), 'NONE');
      assert.equal(errorName((await ok.request(ApiKey.SaslAuthenticate, 2, { authBytes: Buffer.from('\0alice\0alice-secret') })).errorCode), 'NONE');
      const md = await ok.request(ApiKey.Metadata, 12, { topics: null, allowAutoTopicCreation: false, includeTopicAuthorizedOperations: false });
      assert.deepEqual((md.topics as Msg[]).map((t) => t.name).filter((n) => n === SENTINEL), [], 'the sentinel topic exists: a request reached a handler before authentication');
    } finally {
      ok.destroy();
    }
  });
});

const TLS_CASES = Number(process.env.KAFKALITE_SASL_FUZZ_CASES ?? tierCount(600, 100));

test(`hostile SASL frames over SASL_SSL: ${TLS_CASES} cases; plaintext bytes to the TLS port close it (seed ${SEED})`, { timeout: 600_000 }, async () => {
  const errors: string[] = [];
  const logger = { level: 'warn' as const, debug() {}, info() {}, warn() {}, error: (m: string) => void errors.push(m), warnThrottled() {} };
  const config = { ...CONFIG, listeners: 'SASL_SSL://127.0.0.1:0', 'listener.security.protocol.map': 'SASL_SSL:SASL_SSL' };
  await withBroker({ config, tls: 'self-signed', users: { alice: 'alice-secret' }, logger }, async (broker) => {
    const port = broker.advertisedEndpoint('SASL_SSL').port;
    const connect = (): Promise<RawClient> => RawClient.connectTls(port, { ca: broker.tls!.caPem, servername: 'localhost' });
    const rng = new Rng(SEED ^ 0x7151);
    const PARALLEL = 8;
    for (let done = 0; done < TLS_CASES; done += PARALLEL) {
      const batch = Array.from({ length: Math.min(PARALLEL, TLS_CASES - done) }, () => new Rng(rng.int(0x7fffffff)));
      for (const o of await Promise.all(batch.map((r) => runCase(connect, r)))) {
        assert.ok(o.closed, `${o.kind}: the broker left the connection open`);
        assert.equal(o.strayFrames, 0, `${o.kind}: a frame with a correlation id the case never sent`);
      }
    }
    // Kafka frames and random bytes without TLS: the TLS server answers with an alert at most, and closes
    for (let i = 0; i < 20; i++) {
      const c = await RawClient.connect(port);
      const garbage = rng.bytes(5 + rng.int(300)); // at least a record header
      // a first byte below 20, no TLS record type: a TLS server rightly waits for the rest of a
      // record whose header starts with 20-24, or of an SSLv2 hello (high bit set), until its
      // handshake timeout; every Kafka frame starts with 0 (its size's high byte)
      garbage[0] = rng.int(20);
      c.send(i % 2 === 0 ? encodeRequestFrame(ApiKey.SaslHandshake, 1, 1, { mechanism: 'PLAIN' }) : garbage);
      try {
        assert.ok(await c.closesWithin(20_000), 'plaintext to the TLS port left open');
      } finally {
        c.destroy();
      }
    }
    assert.deepEqual(errors, [], 'a handler failed (logged at error level)');
    const ok = await connect();
    try {
      assert.equal(errorName((await ok.request(ApiKey.SaslHandshake, 1, { mechanism: 'SCRAM-SHA-256' })).errorCode), 'NONE');
      const first = await ok.request(ApiKey.SaslAuthenticate, 2, { authBytes: Buffer.from('n,,n=alice,r=fuzzafter') });
      assert.equal(errorName(first.errorCode), 'NONE', 'SCRAM still starts after the storm');
    } finally {
      ok.destroy();
    }
  });
});
