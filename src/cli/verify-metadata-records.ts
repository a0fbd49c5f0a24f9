/**
 * `kafkalite verify` on the KRaft metadata log (`__cluster_metadata-0`, its `.checkpoint`
 * snapshots) and `bootstrap.checkpoint`: beyond the CRC, every record must decode as Kafka's
 * metadata loader reads it (`RecordsIterator`): a data record's value through `MetadataRecordSerde`
 * (frame, record type, version, message), a control record through `ControlRecordUtils`
 * (LEADER_CHANGE, SNAPSHOT_HEADER/FOOTER, KRAFT_VERSION, KRAFT_VOTERS). A record that does not is
 * a fault Kafka's loader stops at, even though its batch's CRC holds.
 */
import { KafkaliteError } from '../errors.js';
import { decodeKRaftControlRecord, decodeMetadataRecord } from '../internal-topics/cluster-metadata.js';
import { METADATA_LOG_DIR } from '../internal-topics/metadata-log.js';
import { undecodable } from '../internal-topics/version-prefixed.js';
import { decodeMessage } from '../protocol/codec.js';
import { LeaderChangeMessage } from '../protocol/schemas/internal/raft.js';
import type { AnyRecordBatch } from '../record/batches.js';
import { parseControlRecordKey } from '../record/control.js';

const LEADER_CHANGE_VERSION = 0;

/** Whether `dir` is the metadata log's partition directory. */
export function isMetadataLogDir(dir: string): boolean {
  return dir.replace(/[/\\]+$/, '').split(/[/\\]/).at(-1) === METADATA_LOG_DIR;
}

/** The first record of a metadata batch (CRC already checked) that does not decode, as a reason naming its offset. */
export function metadataBatchProblem(batch: AnyRecordBatch): string | undefined {
  if (batch.kind !== 'v2') return `batch ending at offset ${batch.lastOffset}: a legacy (v${batch.magic}) batch, which the metadata log never holds`;
  for (const r of batch.records({ verifyCrc: false })) {
    try {
      if (batch.isControl) checkControlRecord(r.key, r.value);
      else if (r.value === null) undecodable('__cluster_metadata record', new Error('null value'));
      else decodeMetadataRecord(r.value);
    } catch (e) {
      if (!(e instanceof KafkaliteError)) throw e;
      return `metadata record at offset ${r.offset}: ${e.detail}`;
    }
  }
  return undefined;
}

function checkControlRecord(key: Buffer | null, bytes: Buffer | null): void {
  const type = parseControlRecordKey(key).type;
  if (type === 'LEADER_CHANGE') {
    try {
      // read at ControlRecordUtils.LEADER_CHANGE_CURRENT_VERSION (0), whatever the schema's latest
      decodeMessage(LeaderChangeMessage, LEADER_CHANGE_VERSION, bytes ?? Buffer.alloc(0), 0);
    } catch (e) {
      undecodable('LeaderChangeMessage control record value', e);
    }
  } else if (decodeKRaftControlRecord(type, bytes) === undefined) {
    undecodable('KRaft control record', new Error(`control type ${type} has no place in the metadata log`));
  }
}
