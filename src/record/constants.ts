/** Layout constants of Kafka's record formats (storage spec §0.1, §2.1, `Records.java`, `DefaultRecordBatch.java`). */

export const NO_TIMESTAMP = -1n;
export const NO_PRODUCER_EPOCH = -1;
export const NO_SEQUENCE = -1;

/** offset (int64) + size (int32) in front of every batch or legacy entry. */
export const LOG_OVERHEAD = 12;
/** The magic byte sits at byte 16 of every batch and legacy entry. */
export const MAGIC_OFFSET = 16;
export const HEADER_SIZE_UP_TO_MAGIC = 17;
/** Smallest legal entry size field (a v0 message header): `Records.java` via `LegacyRecord.RECORD_OVERHEAD_V0`. */
export const MIN_ENTRY_SIZE = 14;

// v2 batch header field offsets (spec §2.1; baseOffset is at 0)
export const LENGTH_OFFSET = 8;
export const PARTITION_LEADER_EPOCH_OFFSET = 12;
export const CRC_OFFSET = 17;
export const ATTRIBUTES_OFFSET = 21;
export const LAST_OFFSET_DELTA_OFFSET = 23;
export const BASE_TIMESTAMP_OFFSET = 27;
export const MAX_TIMESTAMP_OFFSET = 35;
export const PRODUCER_ID_OFFSET = 43;
export const PRODUCER_EPOCH_OFFSET = 51;
export const BASE_SEQUENCE_OFFSET = 53;
export const RECORDS_COUNT_OFFSET = 57;
export const RECORD_BATCH_OVERHEAD = 61;

// attribute bits (spec §2.2)
export const COMPRESSION_CODEC_MASK = 0x07;
export const TIMESTAMP_TYPE_MASK = 0x08;
export const TRANSACTIONAL_FLAG_MASK = 0x10;
export const CONTROL_FLAG_MASK = 0x20;
export const DELETE_HORIZON_FLAG_MASK = 0x40;

export type TimestampType = 'CreateTime' | 'LogAppendTime';
