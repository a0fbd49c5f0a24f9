/**
 * Kafka's `Uuid` (`clients/src/main/java/org/apache/kafka/common/Uuid.java`):
 * 16 bytes, shown as URL-safe base64 without padding (22 characters). Topic ids in
 * partition.metadata and directory ids in meta.properties use this form.
 */
import { randomUUID } from 'node:crypto';
import { InvalidArgumentError } from '../errors.js';

/** Uuid.ZERO_UUID: "no id". Never generated; a partition.metadata holding it is invalid. */
export const ZERO_UUID = 'AAAAAAAAAAAAAAAAAAAAAA';
/** Uuid.ONE_UUID, reserved. */
export const ONE_UUID = 'AAAAAAAAAAAAAAAAAAAAAQ';
/** Uuid.METADATA_TOPIC_ID: the KRaft `__cluster_metadata` topic's id (= ONE_UUID). */
export const METADATA_TOPIC_ID = ONE_UUID;

/** The ids `randomUuid` never returns (Uuid.RESERVED). */
const RESERVED = new Set([ZERO_UUID, ONE_UUID]);

/** Uuid.toString: the 16 bytes as unpadded base64url. */
export function uuidToString(bytes: Buffer): string {
  if (bytes.length !== 16) throw new InvalidArgumentError(`a Uuid is 16 bytes, got ${bytes.length}`);
  return bytes.toString('base64url');
}

/**
 * Uuid.randomUuid: a type-4 random UUID (Kafka draws it from java.util.UUID.randomUUID, so the
 * version and variant bits are set like here), drawn again while it is reserved or its string
 * starts with '-': such a cluster id was taken for an option by `kafka-storage.sh format -t`
 * (KAFKA-13741, apache/kafka#11901). Later Kafka releases (KAFKA-20072) also avoid '-' inside
 * topic ids; Kafka 4.0's `Uuid.randomUuid` only avoids the leading one.
 */
export function randomUuid(): string {
  for (;;) {
    const id = uuidToString(Buffer.from(randomUUID().replace(/-/g, ''), 'hex'));
    if (!RESERVED.has(id) && !id.startsWith('-')) return id;
  }
}

/**
 * Uuid.fromString: base64url (padding optional, as Java's URL decoder allows) that must decode to
 * exactly 16 bytes. Java's decoder rejects characters outside the URL-safe alphabet, which Node's
 * lenient decoder would skip, so the alphabet is checked first. Messages follow Kafka's.
 */
export function parseUuid(s: string): Buffer {
  if (s.length > 24) {
    throw new InvalidArgumentError(
      `Input string with prefix \`${s.slice(0, 24)}\` is too long to be decoded as a base64 UUID`,
    );
  }
  const m = /^([A-Za-z0-9_-]*)(=*)$/.exec(s);
  const body = m?.[1] ?? '';
  const padding = m?.[2] ?? '';
  // Java: a lone trailing character has too few bits, and padding must complete a 4-char unit.
  const badPadding = padding.length > 2 || (padding.length > 0 && (body.length + padding.length) % 4 !== 0);
  if (m === null || body.length % 4 === 1 || badPadding) {
    throw new InvalidArgumentError(`Input string \`${s}\` is not valid base64url`);
  }
  const bytes = Buffer.from(body, 'base64url');
  if (bytes.length !== 16) {
    throw new InvalidArgumentError(
      `Input string \`${s}\` decoded as ${bytes.length} bytes, which is not equal to the expected 16 bytes ` +
        'of a base64-encoded UUID',
    );
  }
  return bytes;
}

/** True for the all-zero id (bytes or string form). */
export function isZeroUuid(id: Buffer | string): boolean {
  const bytes = typeof id === 'string' ? parseUuid(id) : id;
  return bytes.length === 16 && bytes.every((b) => b === 0);
}
