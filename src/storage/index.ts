/** The storage layer's public surface: data directories, partition logs and their configs. */
export { LogManager, type LogManagerOptions } from './log-manager.js';
export {
  PartitionLog,
  EARLIEST_TIMESTAMP,
  LATEST_TIMESTAMP,
  MAX_TIMESTAMP,
  type AppendResult,
  type IsolationLevel,
  type LogSink,
  type PartitionLogOptions,
  type ReadResult,
  type RecoveryReport,
} from './partition-log.js';
export { DEFAULT_LOG_CONFIG, logConfigFromProperties, messageFormatMagic, type LogConfig } from './log-config.js';
export { LogSegment } from './log-segment.js';
export { FileRecords, type BatchHeader, type FileBatch } from './file-records.js';
export { OffsetIndex } from './offset-index.js';
export { TimeIndex } from './time-index.js';
export { TransactionIndex, type AbortedTxn } from './transaction-index.js';
export { ProducerStateManager } from './producer-state.js';
export { readProducerSnapshot, writeProducerSnapshot, type ProducerSnapshotEntry } from './producer-snapshot.js';
export { validateAndAssignOffsets } from './log-validator.js';
export { validateTopicName, partitionDirName, parseTopicPartitionName } from './topic.js';
