/** Layout constants of Kafka's record formats (Kafka `Records.java`, `RecordBatch.java`, `DefaultRecordBatch.java`). */

export const NO_TIMESTAMP = -1n;
export const NO_PRODUCER_EPOCH = -1;
export const NO_SEQUENCE = -1;

/*
 * Every log entry, a v2 batch or a legacy message, starts with the same 12-byte prefix (Kafka
 * `Records`: OFFSET_OFFSET, SIZE_OFFSET, LOG_OVERHEAD), and its magic byte sits at the same place
 * in both formats: after the prefix and a 4-byte field (the v2 partition leader epoch, the legacy
 * crc). That is how a reader tells the formats apart before knowing which one it holds.
 */
export const OFFSET_LENGTH = 8;
export const SIZE_LENGTH = 4;
/** offset (int64) + size (int32) in front of every batch or legacy entry. */
export const LOG_OVERHEAD = OFFSET_LENGTH + SIZE_LENGTH;
export const MAGIC_LENGTH = 1;
/** The magic byte sits at byte 16 of every batch and legacy entry. */
export const MAGIC_OFFSET = LOG_OVERHEAD + 4;
export const HEADER_SIZE_UP_TO_MAGIC = MAGIC_OFFSET + MAGIC_LENGTH;
/** Smallest legal entry size field (a v0 message header): `Records.java` via `LegacyRecord.RECORD_OVERHEAD_V0`. */
export const MIN_ENTRY_SIZE = 14;

/*
 * The v2 record batch header (Kafka `DefaultRecordBatch`, KIP-98). Each field's offset is the
 * previous field's offset plus its length, so the table below is the only place a size is written:
 *
 *   field                  offset  size  type
 *   baseOffset                  0     8  int64
 *   length                      8     4  int32   bytes after this field
 *   partitionLeaderEpoch       12     4  int32
 *   magic                      16     1  int8    2
 *   crc                        17     4  uint32  CRC-32C over attributes..end
 *   attributes                 21     2  int16   bits below
 *   lastOffsetDelta            23     4  int32
 *   baseTimestamp              27     8  int64   the delete horizon when bit 6 is set (KIP-534)
 *   maxTimestamp               35     8  int64
 *   producerId                 43     8  int64
 *   producerEpoch              51     2  int16
 *   baseSequence               53     4  int32
 *   recordsCount               57     4  int32
 *   records                    61     -          RECORD_BATCH_OVERHEAD = 61
 */
export const BASE_OFFSET_OFFSET = 0;
export const BASE_OFFSET_LENGTH = OFFSET_LENGTH;
export const LENGTH_OFFSET = BASE_OFFSET_OFFSET + BASE_OFFSET_LENGTH;
export const LENGTH_LENGTH = SIZE_LENGTH;
export const PARTITION_LEADER_EPOCH_OFFSET = LENGTH_OFFSET + LENGTH_LENGTH;
export const PARTITION_LEADER_EPOCH_LENGTH = 4;
// magic: MAGIC_OFFSET above, which is PARTITION_LEADER_EPOCH_OFFSET + PARTITION_LEADER_EPOCH_LENGTH
export const CRC_OFFSET = MAGIC_OFFSET + MAGIC_LENGTH;
export const CRC_LENGTH = 4;
export const ATTRIBUTES_OFFSET = CRC_OFFSET + CRC_LENGTH;
export const ATTRIBUTES_LENGTH = 2;
export const LAST_OFFSET_DELTA_OFFSET = ATTRIBUTES_OFFSET + ATTRIBUTES_LENGTH;
export const LAST_OFFSET_DELTA_LENGTH = 4;
export const BASE_TIMESTAMP_OFFSET = LAST_OFFSET_DELTA_OFFSET + LAST_OFFSET_DELTA_LENGTH;
export const BASE_TIMESTAMP_LENGTH = 8;
export const MAX_TIMESTAMP_OFFSET = BASE_TIMESTAMP_OFFSET + BASE_TIMESTAMP_LENGTH;
export const MAX_TIMESTAMP_LENGTH = 8;
export const PRODUCER_ID_OFFSET = MAX_TIMESTAMP_OFFSET + MAX_TIMESTAMP_LENGTH;
export const PRODUCER_ID_LENGTH = 8;
export const PRODUCER_EPOCH_OFFSET = PRODUCER_ID_OFFSET + PRODUCER_ID_LENGTH;
export const PRODUCER_EPOCH_LENGTH = 2;
export const BASE_SEQUENCE_OFFSET = PRODUCER_EPOCH_OFFSET + PRODUCER_EPOCH_LENGTH;
export const BASE_SEQUENCE_LENGTH = 4;
export const RECORDS_COUNT_OFFSET = BASE_SEQUENCE_OFFSET + BASE_SEQUENCE_LENGTH;
export const RECORDS_COUNT_LENGTH = 4;
export const RECORDS_OFFSET = RECORDS_COUNT_OFFSET + RECORDS_COUNT_LENGTH;
/** The header's size: where the first record starts. */
export const RECORD_BATCH_OVERHEAD = RECORDS_OFFSET;

// attribute bits (DefaultRecordBatch: codec, timestamp type, transactional, control, delete horizon)
export const COMPRESSION_CODEC_MASK = 0x07;
export const TIMESTAMP_TYPE_MASK = 0x08;
export const TRANSACTIONAL_FLAG_MASK = 0x10;
export const CONTROL_FLAG_MASK = 0x20;
export const DELETE_HORIZON_FLAG_MASK = 0x40;

export type TimestampType = 'CreateTime' | 'LogAppendTime';
