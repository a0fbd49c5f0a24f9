/**
 * Driving broker handlers directly, without a socket: the request is encoded and decoded with the
 * API's schema at the given version (so it has exactly the fields a client would send), and the
 * handler's answer is encoded and decoded the same way (so it must be a valid response of that version).
 */
import { encodeMessageToBuffer, decodeMessage } from '../../../src/protocol/codec.js';
import { ConsumerProtocolSubscription } from '../../../src/protocol/schemas/internal/consumer-protocol.js';
import { NO_RESPONSE } from '../../../src/broker/handler.js';
import type { Broker } from '../../../src/broker/broker.js';

/** A request or response as these tests write and read it: any API's fields. */
// eslint-disable-next-line @typescript-eslint/no-explicit-any
type Message = Record<string, any>;

export async function call(broker: Broker, apiKey: number, version: number, request: Message, clientId = 'unit-client'): Promise<Message> {
  const handler = broker.handlerFor(apiKey, version);
  if (handler === undefined) throw new Error(`API ${apiKey} v${version} is not served`);
  const decoded = decodeMessage(handler.api.request, version, encodeMessageToBuffer(handler.api.request, version, request)).value as Message;
  const response = await handler.handle(decoded, {
    broker,
    apiKey,
    apiVersion: version,
    correlationId: 1,
    clientId,
    remote: '127.0.0.1:40000',
    connection: { principal: 'User:ANONYMOUS' },
    // the answer stays with the test: nothing it refers to is handed back for reuse
    afterAnswer: () => undefined,
    recycleRequestFrame: () => undefined,
  });
  if (response === NO_RESPONSE) throw new Error('no response');
  return decodeMessage(handler.api.response, version, encodeMessageToBuffer(handler.api.response, version, response)).value as Message;
}

/** Consumer protocol subscription metadata (version prefix + ConsumerProtocolSubscription v0). */
export function subscription(topics: string[]): Buffer {
  const body = encodeMessageToBuffer(ConsumerProtocolSubscription, 0, { topics, userData: null });
  const out = Buffer.alloc(2 + body.length);
  out.writeInt16BE(0, 0);
  body.copy(out, 2);
  return out;
}

export const API = { OffsetCommit: 8, OffsetFetch: 9, JoinGroup: 11, Heartbeat: 12, LeaveGroup: 13, SyncGroup: 14, DescribeGroups: 15, ListGroups: 16, DeleteGroups: 42, OffsetDelete: 47 } as const;

/** JoinGroup v5 request fields for a consumer-protocol member. */
export function joinRequest(groupId: string, memberId: string, protocols: { name: string; metadata: Buffer }[], extra: Message = {}): Message {
  return {
    groupId,
    sessionTimeoutMs: 10000,
    rebalanceTimeoutMs: 10000,
    memberId,
    groupInstanceId: null,
    protocolType: 'consumer',
    protocols,
    ...extra,
  };
}
