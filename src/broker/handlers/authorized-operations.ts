/**
 * The `*AuthorizedOperations` bit fields of DescribeCluster and DescribeTopicPartitions (KIP-430).
 * Without an authorizer Kafka grants everything a resource type supports
 * (`AuthHelper.authorizedOperations` over `AclEntry.supportedOperations`), each operation as bit
 * `1 << AclOperation.code`.
 */

/** Integer.MIN_VALUE, the schemas' default when the client did not ask. */
export const OPERATIONS_NOT_REQUESTED = -2147483648;

/** `AclOperation` codes. */
const READ = 3, WRITE = 4, CREATE = 5, DELETE = 6, ALTER = 7, DESCRIBE = 8, CLUSTER_ACTION = 9;
const DESCRIBE_CONFIGS = 10, ALTER_CONFIGS = 11, IDEMPOTENT_WRITE = 12;

const bits = (ops: readonly number[]): number => ops.reduce((acc, op) => acc | (1 << op), 0);

/** The CLUSTER resource: CREATE, ALTER, DESCRIBE, CLUSTER_ACTION, DESCRIBE_CONFIGS, ALTER_CONFIGS, IDEMPOTENT_WRITE. */
export const CLUSTER_AUTHORIZED_OPERATIONS = bits([CREATE, ALTER, DESCRIBE, CLUSTER_ACTION, DESCRIBE_CONFIGS, ALTER_CONFIGS, IDEMPOTENT_WRITE]);

/** A TOPIC resource: READ, WRITE, CREATE, DELETE, ALTER, DESCRIBE, DESCRIBE_CONFIGS, ALTER_CONFIGS. */
export const TOPIC_AUTHORIZED_OPERATIONS = bits([READ, WRITE, CREATE, DELETE, ALTER, DESCRIBE, DESCRIBE_CONFIGS, ALTER_CONFIGS]);
