/**
 * The part of KRaft's metadata image a single kafkalite node keeps (Kafka `TopicsImage`,
 * `ConfigurationsImage` for topics, `FeaturesImage`), and the `__cluster_metadata` records that
 * state its changes, as Kafka 4's controller writes them:
 *
 * - a topic's creation (`ReplicationControlManager.createTopic`): a TopicRecord, its ConfigRecords
 *   ("ConfigRecords go after TopicRecord but before PartitionRecord(s)"), then one PartitionRecord
 *   per partition; CreatePartitions: PartitionRecords; a config change
 *   (`ConfigurationControlManager`): one ConfigRecord per key set or removed (value null);
 *   a deletion: a RemoveTopicRecord, whose replay also drops the topic's configs;
 * - the bootstrap (`BootstrapMetadata`, `QuorumController`'s first activation): BeginTransaction,
 *   FeatureLevelRecord metadata.version, ZkMigrationStateRecord NONE, EndTransaction;
 * - a snapshot (`MetadataImage.write`): features, then each topic with its partitions, then the
 *   topic configs.
 *
 * The record versions are those of metadata.version 3.8-IV0 (feature level 20), the level of the
 * Kafka-written directory kafkalite is compared with (corpora/kafka-tester): PartitionRecord v1
 * (with the replica's directory, KIP-858), the others v0. Kafka 4.0 reads logs from 3.3-IV3 on.
 *
 * Memory is per topic, not per partition: every partition of a single node has the same replica,
 * leader and directory, so a topic keeps its partition count.
 */
import type { DecodedMessage, MetadataRecord } from './cluster-metadata.js';
import { metadataRecord } from './cluster-metadata.js';
import {
  BeginTransactionRecord,
  ConfigRecord,
  EndTransactionRecord,
  FeatureLevelRecord,
  PartitionRecord,
  RemoveTopicRecord,
  TopicRecord,
  ZkMigrationRecord,
} from '../protocol/schemas/internal/metadata.js';
import { parseUuid, uuidToString } from '../storage/uuid.js';

/** MetadataVersion.IBP_3_8_IV0.featureLevel(): the level kafkalite writes (see the module comment). */
export const METADATA_VERSION_LEVEL = 20;
export const METADATA_VERSION_FEATURE = 'metadata.version';
/** ConfigResource.Type.TOPIC's id in ConfigRecord.ResourceType. */
export const TOPIC_RESOURCE_TYPE = 2;
/** MetadataVersion.partitionRecordVersion() at IBP_3_8_IV0: 1 (directory assignment, no ELR). */
const PARTITION_RECORD_VERSION = 1;

export interface ImageTopic {
  readonly name: string;
  /** Base64url, as in partition.metadata. */
  readonly topicId: string;
  /** One more than the highest PartitionRecord's id. */
  partitions: number;
}

export class MetadataImage {
  private readonly byId = new Map<string, ImageTopic>();
  private readonly byName = new Map<string, ImageTopic>();
  /** Topic configs by topic name (ConfigurationsImage keys them by resource, not by id). */
  private readonly topicConfigs = new Map<string, Map<string, string>>();
  readonly features = new Map<string, number>();

  /** Applies one record (Kafka `MetadataDelta.replay`); record types kafkalite does not keep are skipped. */
  replay(record: DecodedMessage): void {
    const v = record.value;
    switch (record.schema) {
      case TopicRecord: {
        const topic: ImageTopic = { name: v['name'] as string, topicId: uuidToString(v['topicId'] as Buffer), partitions: 0 };
        this.byId.set(topic.topicId, topic);
        this.byName.set(topic.name, topic);
        break;
      }
      case PartitionRecord: {
        const topic = this.byId.get(uuidToString(v['topicId'] as Buffer));
        const id = v['partitionId'] as number;
        if (topic !== undefined && id >= topic.partitions) topic.partitions = id + 1;
        break;
      }
      case ConfigRecord: {
        if (v['resourceType'] !== TOPIC_RESOURCE_TYPE) break;
        const name = v['resourceName'] as string;
        const value = v['value'] as string | null;
        let configs = this.topicConfigs.get(name);
        if (value === null) {
          configs?.delete(v['name'] as string);
          if (configs?.size === 0) this.topicConfigs.delete(name);
        } else {
          if (configs === undefined) this.topicConfigs.set(name, (configs = new Map()));
          configs.set(v['name'] as string, value);
        }
        break;
      }
      case RemoveTopicRecord: {
        const topic = this.byId.get(uuidToString(v['topicId'] as Buffer));
        if (topic === undefined) break;
        this.byId.delete(topic.topicId);
        this.byName.delete(topic.name);
        this.topicConfigs.delete(topic.name);
        break;
      }
      case FeatureLevelRecord: {
        const level = v['featureLevel'] as number;
        if (level === 0) this.features.delete(v['name'] as string);
        else this.features.set(v['name'] as string, level);
        break;
      }
      default:
        break;
    }
  }

  topic(name: string): ImageTopic | undefined {
    return this.byName.get(name);
  }

  topics(): IterableIterator<ImageTopic> {
    return this.byName.values();
  }

  get topicCount(): number {
    return this.byName.size;
  }

  configs(name: string): Record<string, string> {
    return Object.fromEntries(this.topicConfigs.get(name) ?? []);
  }

  /** The records of a snapshot of this image (Kafka `MetadataImage.write` order), one record value each. */
  *snapshotRecords(nodeId: number, directoryId: string): Generator<Buffer> {
    for (const [name, level] of this.features) yield featureLevelRecord(name, level).bytes;
    yield metadataRecord(ZkMigrationRecord, 0, { zkMigrationState: 0 }).bytes;
    for (const t of this.byName.values()) {
      yield topicRecord(t.name, t.topicId).bytes;
      for (const r of partitionRecords(t.topicId, 0, t.partitions, nodeId, directoryId)) yield r.bytes;
    }
    for (const [name, configs] of this.topicConfigs) for (const [k, value] of configs) yield configRecord(name, k, value).bytes;
  }
}

export function featureLevelRecord(name: string, level: number): MetadataRecord {
  return metadataRecord(FeatureLevelRecord, 0, { name, featureLevel: level });
}

/** The bootstrap records a new metadata log starts with (`BootstrapMetadata` in a metadata transaction, KIP-868). */
export function bootstrapRecords(): MetadataRecord[] {
  return [
    metadataRecord(BeginTransactionRecord, 0, { name: 'Bootstrap records' }),
    featureLevelRecord(METADATA_VERSION_FEATURE, METADATA_VERSION_LEVEL),
    metadataRecord(ZkMigrationRecord, 0, { zkMigrationState: 0 }),
    metadataRecord(EndTransactionRecord, 0, {}),
  ];
}

export function topicRecord(name: string, topicId: string): MetadataRecord {
  return metadataRecord(TopicRecord, 0, { name, topicId: parseUuid(topicId) });
}

/** A single node's partition: this node the only replica, in the ISR and leader, at epoch 0 (`PartitionRegistration.toRecord`). */
export function partitionRecord(topicId: string, partitionId: number, nodeId: number, directoryId: string): MetadataRecord {
  return partitionRecords(topicId, partitionId, partitionId + 1, nodeId, directoryId)[0]!;
}

/**
 * The PartitionRecords of partitions `from` until `to` of one topic, appended to `out`: the ids
 * parsed and the replica lists made once for all of them (they are only read, by the encoder and
 * the image).
 */
export function partitionRecords(topicId: string, from: number, to: number, nodeId: number, directoryId: string, out: MetadataRecord[] = []): MetadataRecord[] {
  const topicIdBytes = parseUuid(topicId);
  const replicas = [nodeId];
  const directories = [parseUuid(directoryId)];
  const none: number[] = [];
  for (let partitionId = from; partitionId < to; partitionId++) {
    out.push(
      metadataRecord(PartitionRecord, PARTITION_RECORD_VERSION, {
        partitionId,
        topicId: topicIdBytes,
        replicas,
        isr: replicas,
        removingReplicas: none,
        addingReplicas: none,
        leader: nodeId,
        leaderEpoch: 0,
        partitionEpoch: 0,
        directories,
      }),
    );
  }
  return out;
}

/** A topic config set (`value`) or removed (null). */
export function configRecord(topic: string, name: string, value: string | null): MetadataRecord {
  return metadataRecord(ConfigRecord, 0, { resourceType: TOPIC_RESOURCE_TYPE, resourceName: topic, name, value });
}

export function removeTopicRecord(topicId: string): MetadataRecord {
  return metadataRecord(RemoveTopicRecord, 0, { topicId: parseUuid(topicId) });
}

/** The records of a topic's creation, in the controller's order. */
export function createTopicRecords(name: string, topicId: string, partitions: number, configs: Readonly<Record<string, string>>, nodeId: number, directoryId: string): MetadataRecord[] {
  const out = [topicRecord(name, topicId)];
  for (const [k, value] of Object.entries(configs)) out.push(configRecord(name, k, value));
  return partitionRecords(topicId, 0, partitions, nodeId, directoryId, out);
}
