/** Schemas of records Kafka keeps in its internal topics and of the consumer protocol. */
export * from './group-coordinator.js';
export * from './transaction-coordinator.js';
export * from './raft.js';
export * from './metadata.js';
export * from './consumer-protocol.js';
