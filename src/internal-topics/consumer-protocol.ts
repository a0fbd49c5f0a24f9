/**
 * The consumer protocol inside classic groups (Kafka `ConsumerProtocol`): in a group of protocol
 * type "consumer", each member's JoinGroup metadata is a ConsumerProtocolSubscription and its
 * SyncGroup assignment a ConsumerProtocolAssignment, each an int16 version then the message. The
 * group metadata records of `__consumer_offsets` store both bytes as they came.
 */
import type { MessageSchema } from '../protocol/schema.js';
import { decodeMessage } from '../protocol/codec.js';
import { bufferView } from '../bytes/buffer-view.js';

export const CONSUMER_PROTOCOL_TYPE = 'consumer';

/**
 * The message in consumer-protocol bytes, or undefined when they are not that (under 2 bytes, a
 * negative version, or not decodable). With `newer: 'read-as-newest'` a version past the schema's
 * is read at the newest one known, its later fields ignored (as `ConsumerProtocol.deserialize*`
 * reads a newer client's bytes); with 'refuse' only known versions decode.
 */
export function decodeConsumerProtocol<T = { [k: string]: unknown }>(
  schema: MessageSchema,
  bytes: Uint8Array,
  newer: 'read-as-newest' | 'refuse',
): { version: number; value: T } | undefined {
  if (bytes.length < 2) return undefined;
  const buf = bufferView(bytes);
  let version = buf.readInt16BE(0);
  if (version < 0) return undefined;
  if (newer === 'read-as-newest') version = Math.min(version, schema.validVersions[1]);
  try {
    return { version, value: decodeMessage<T>(schema, version, buf, 2).value };
  } catch {
    return undefined; // not the consumer protocol after all
  }
}
