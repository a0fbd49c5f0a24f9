/**
 * Child process of the metadata transaction crash test: opens the metadata log in `dir`, appends
 * a small change, then a change of 2,500 records (a metadata transaction of five batches) and
 * SIGKILLs itself as the third batch is about to be written: the process dies with the
 * BeginTransactionRecord and the first 1,000 records in the log.
 */
import { ClusterMetadataLog } from '../../src/internal-topics/metadata-log.js';
import { createTopicRecords } from '../../src/internal-topics/metadata-image.js';

const [dir, directoryId, smallId, bigId] = process.argv.slice(2);
if (!dir || !directoryId || !smallId || !bigId) throw new Error('usage: metadata-txn-child <dir> <directory id> <small topic id> <big topic id>');

const metadata = ClusterMetadataLog.open({ dataDir: dir, nodeId: 1, directoryId, hadCleanShutdown: false });
metadata.append(createTopicRecords('small', smallId, 1, {}, 1, directoryId));
const append = metadata.log.append.bind(metadata.log);
let calls = 0;
metadata.log.append = (...args: Parameters<typeof append>) => {
  if (++calls === 3) process.kill(process.pid, 'SIGKILL');
  return append(...args);
};
metadata.append(createTopicRecords('big', bigId, 2500, {}, 1, directoryId));
throw new Error('the change was written whole: the child should have died within it');
