/**
 * KIP-890 part 1, the partition leader's defence (Kafka `ReplicaManager.handleProduceAppend`,
 * `UnifiedLog.maybeStartTransactionVerification`, `AddPartitionsToTxnManager`): a transactional
 * batch for a partition whose producer has no open transaction there at the batch's epoch is
 * checked with the transaction coordinator (AddPartitionsToTxn VerifyOnly). A partition the
 * client never added is refused, so a hanging transaction cannot start behind a late or stray
 * write. On with `transaction.partition.verification.enable` (Kafka's default). Kafka's
 * coordinator is a network call away; here it is the same process, so no guard is needed between
 * the verification and the append.
 */
import { readInt16BE } from '../../bytes/big-endian.js';
import { ErrorCode } from '../../protocol/error-codes.js';
import type { PartitionLog } from '../../storage/partition-log.js';
import type { TransactionCoordinator } from './coordinator.js';

/** Offsets into a v2 batch header (DefaultRecordBatch). */
const MAGIC = 16;
const ATTRIBUTES = 21;
const PRODUCER_ID = 43;
const PRODUCER_EPOCH = 51;
const HEADER_SIZE = 61;
const TRANSACTIONAL_FLAG = 0x10;
const CONTROL_FLAG = 0x20;

/**
 * The verification's error as Produce reports it (`AddPartitionsToTxnManager` and ReplicaManager's
 * mapping): a partition not in the transaction is INVALID_TXN_STATE up to v10 (the defaultError
 * mode) and TRANSACTION_ABORTABLE from v11 (genericError, KIP-890), a fenced epoch
 * INVALID_PRODUCER_EPOCH, and a coordinator that cannot answer now NOT_ENOUGH_REPLICAS, which old
 * clients retry.
 */
function produceError(code: number, genericError: boolean): number {
  switch (code) {
    case ErrorCode.TRANSACTION_ABORTABLE:
      return genericError ? code : ErrorCode.INVALID_TXN_STATE;
    case ErrorCode.PRODUCER_FENCED:
      return ErrorCode.INVALID_PRODUCER_EPOCH;
    case ErrorCode.COORDINATOR_LOAD_IN_PROGRESS:
    case ErrorCode.COORDINATOR_NOT_AVAILABLE:
    case ErrorCode.NOT_COORDINATOR:
    case ErrorCode.CONCURRENT_TRANSACTIONS:
      return ErrorCode.NOT_ENOUGH_REPLICAS;
    default:
      return code;
  }
}

/** NONE, or the error Produce answers for this partition's records. */
export function verifyTransactionalProduce(
  coordinator: TransactionCoordinator,
  transactionalId: string | null,
  topic: string,
  partition: number,
  records: Buffer | null,
  log: PartitionLog,
  /** Produce v11+: TRANSACTION_ABORTABLE is answered as it is. */
  genericError = false,
): number {
  if (!coordinator.config.partitionVerification || transactionalId === null) return ErrorCode.NONE;
  if (records === null || records.length < HEADER_SIZE || records[MAGIC] !== 2) return ErrorCode.NONE;
  const attributes = readInt16BE(records, ATTRIBUTES);
  if ((attributes & TRANSACTIONAL_FLAG) === 0 || (attributes & CONTROL_FLAG) !== 0) return ErrorCode.NONE;
  const producerId = records.readBigInt64BE(PRODUCER_ID);
  const producerEpoch = readInt16BE(records, PRODUCER_EPOCH);
  const entry = log.producerStateManager.activeProducers().get(producerId);
  // an open transaction at this epoch: the partition was verified when it began
  if (entry !== undefined && entry.producerEpoch === producerEpoch && entry.currentTxnFirstOffset !== undefined) return ErrorCode.NONE;
  return produceError(coordinator.verifyPartition(transactionalId, producerId, producerEpoch, topic, partition), genericError);
}
