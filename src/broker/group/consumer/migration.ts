/**
 * KIP-848's online migration between classic and consumer groups (Kafka 4.0
 * `GroupMetadataManager.convertToConsumerGroup` / `convertToClassicGroup`,
 * `ConsumerGroup.fromClassicGroup`, `ClassicGroup.fromConsumerGroup`), as
 * `group.consumer.migration.policy` allows (Kafka's default: bidirectional).
 *
 * - Upgrade: the first ConsumerGroupHeartbeat for a classic group with members (protocol type
 *   "consumer") turns it into a consumer group. Each classic member becomes a member at the
 *   group's generation, Stable, owning and targeted with its last classic assignment, and keeps
 *   speaking JoinGroup/SyncGroup/Heartbeat (classic-members.ts). The classic metadata gets a
 *   tombstone in the same batch as the consumer group's records; the offsets stay.
 * - Downgrade: when the member leaving (or fenced) is the last one on the consumer protocol and
 *   classic members remain, the group becomes a classic group again at the group epoch, each
 *   member with its target assignment serialized in its own consumer-protocol version, and a
 *   rebalance starts so they rejoin as a classic group.
 */
import { CONSUMER_PROTOCOL_TYPE, decodeConsumerProtocol } from '../../../internal-topics/consumer-protocol.js';
import { groupMetadataKey, groupMetadataValue } from '../../../internal-topics/offsets.js';
import { ErrorCode } from '../../../protocol/error-codes.js';
import { randomUuid } from '../../../storage/uuid.js';
import { encodeMessageToBuffer } from '../../../protocol/codec.js';
import { ConsumerProtocolAssignment, ConsumerProtocolSubscription } from '../../../protocol/schemas/internal/consumer-protocol.js';
import { downgradeEnabled, upgradeEnabled } from '../config.js';
import type { ClassicGroup } from '../group.js';
import { GroupMember } from '../member.js';
import { addPartition, emptyAssignment, type Assignment } from './assignment.js';
import type { ConsumerGroupCoordinator } from './coordinator.js';
import { ConsumerGroup } from './group.js';
import { ConsumerGroupMember } from './member.js';
import { groupTombstones } from './records.js';

/** A consumer-protocol subscription's topics and owned partitions (v1+), undefined when the bytes are not one. */
export function decodeSubscription(metadata: Buffer): { version: number; topics: string[]; ownedPartitions: { topic: string; partitions: number[] }[]; rackId: string | null } | undefined {
  const d = decodeConsumerProtocol<{ topics: string[]; ownedPartitions?: { topic: string; partitions: number[] }[]; rackId?: string | null }>(ConsumerProtocolSubscription, metadata, 'read-as-newest');
  if (d === undefined) return undefined;
  return { version: d.version, topics: d.value.topics, ownedPartitions: d.value.ownedPartitions ?? [], rackId: d.value.rackId ?? null };
}

/** Topic-name partitions → the coordinator's topic-id assignment (topics that do not exist are left out, as Kafka's `toTopicPartitionMap`). */
export function byTopicId(cc: ConsumerGroupCoordinator, tps: readonly { topic: string; partitions: number[] }[]): Assignment {
  const a = emptyAssignment();
  for (const tp of tps) {
    const t = cc.classic.host.topics.get(tp.topic);
    if (t !== undefined) for (const p of tp.partitions) addPartition(a, t.topicId, p);
  }
  return a;
}

/**
 * A member's partitions as a ConsumerProtocolAssignment in the consumer-protocol version of its
 * JoinGroup metadata (Kafka `ConsumerProtocol.serializeAssignment(…, deserializeVersion(metadata))`).
 */
export function encodeAssignment(cc: ConsumerGroupCoordinator, a: Assignment, metadata: Buffer | undefined): Buffer {
  const raw = metadata !== undefined && metadata.length >= 2 ? metadata.readInt16BE(0) : 0;
  const version = Math.max(0, Math.min(raw, ConsumerProtocolAssignment.validVersions[1]));
  const assignedPartitions = [...a]
    .map(([topicId, ps]) => ({ topic: cc.topicById(topicId)?.name, partitions: [...ps].sort((x, y) => x - y) }))
    .flatMap((t) => (t.topic === undefined || t.partitions.length === 0 ? [] : [{ topic: t.topic, partitions: t.partitions }]))
    .sort((x, y) => (x.topic < y.topic ? -1 : x.topic > y.topic ? 1 : 0));
  const body = encodeMessageToBuffer(ConsumerProtocolAssignment, version, { assignedPartitions, userData: null });
  const out = Buffer.allocUnsafe(2 + body.length);
  out.writeInt16BE(version, 0);
  body.copy(out, 2);
  return out;
}

/**
 * Kafka `validateOnlineUpgrade` + `convertToConsumerGroup`: the consumer group made of the classic
 * group's members, or undefined when the policy, the protocol type, the size or the members'
 * protocol bytes do not allow it (the heartbeat then answers GROUP_ID_NOT_FOUND, as Kafka does).
 */
export function upgradeClassicGroup(cc: ConsumerGroupCoordinator, classic: ClassicGroup): ConsumerGroup | undefined {
  const log = cc.classic.host.logger;
  if (!upgradeEnabled(cc.config.consumerMigrationPolicy)) {
    log.info(`Cannot upgrade classic group ${classic.groupId} to consumer group because the online upgrade is disabled.`);
    return undefined;
  }
  if (classic.protocolType !== CONSUMER_PROTOCOL_TYPE) {
    log.info(`Cannot upgrade classic group ${classic.groupId} to consumer group because the group does not use the consumer embedded protocol.`);
    return undefined;
  }
  if (classic.members.size > cc.config.consumerMaxSize) {
    log.info(`Cannot upgrade classic group ${classic.groupId} to consumer group because the group size exceeds the consumer group maximum size.`);
    return undefined;
  }
  const g = new ConsumerGroup(classic.groupId);
  g.groupEpoch = classic.generationId;
  g.assignmentEpoch = classic.generationId;
  g.replacesClassicGroup = true;
  for (const cm of classic.members.values()) {
    const sub = decodeSubscription(cm.metadataFor(classic.protocolName));
    const assigned = decodeConsumerProtocol<{ assignedPartitions: { topic: string; partitions: number[] }[] }>(ConsumerProtocolAssignment, cm.assignment, 'read-as-newest');
    // a member still waiting for its first assignment owns nothing
    if (sub === undefined || (cm.assignment.length > 0 && assigned === undefined)) {
      log.warn(`Cannot upgrade classic group ${classic.groupId}: member ${cm.memberId} has malformed consumer-protocol bytes.`);
      return undefined;
    }
    const m = new ConsumerGroupMember(cm.memberId);
    m.memberEpoch = classic.generationId;
    m.previousMemberEpoch = classic.generationId;
    m.state = 'STABLE';
    m.instanceId = cm.groupInstanceId;
    m.rackId = sub.rackId;
    m.rebalanceTimeoutMs = cm.rebalanceTimeoutMs;
    m.clientId = cm.clientId;
    m.clientHost = cm.clientHost;
    m.subscribedTopicNames = [...sub.topics];
    m.assigned = byTopicId(cc, assigned?.value.assignedPartitions ?? []);
    m.classic = { sessionTimeoutMs: cm.sessionTimeoutMs, protocols: cm.protocols.map((p) => ({ name: p.name, metadata: p.metadata })) };
    g.members.set(m.memberId, m);
    if (m.instanceId !== null) g.staticMembers.set(m.instanceId, m.memberId);
    g.targets.set(m.memberId, byTopicId(cc, assigned?.value.assignedPartitions ?? []));
  }
  g.subscriptionMetadata = cc.subscriptionMetadata(g);
  // the classic side lets go (waiting joins and syncs are told to rejoin, as Kafka completes them with
  // REBALANCE_IN_PROGRESS) once the consumer group is written: the caller calls `detachForUpgrade`
  cc.groups.set(g.groupId, g);
  for (const m of g.members.values()) cc.scheduleSessionTimeout(g, m);
  log.info(`Upgraded classic group ${g.groupId} with ${g.members.size} member(s) to a consumer group at epoch ${g.groupEpoch}`);
  return g;
}

/** Kafka `validateOnlineDowngradeWithFencedMember`. */
export function downgradeAllowed(cc: ConsumerGroupCoordinator, g: ConsumerGroup, leavingMemberId: string): boolean {
  for (const m of g.members.values()) if (m.memberId !== leavingMemberId && m.classic === null) return false;
  if (g.members.size <= 1) return false;
  if (!downgradeEnabled(cc.config.consumerMigrationPolicy)) {
    cc.classic.host.logger.info(`Cannot downgrade consumer group ${g.groupId} to classic group because the online downgrade is disabled.`);
    return false;
  }
  return g.members.size - 1 <= cc.config.maxSize;
}

/**
 * Kafka `convertToClassicGroup` after a member leaves: the consumer group's tombstones and the
 * classic group's metadata in one batch, then the classic group rebalances. The write's error code.
 */
export function downgradeToClassic(cc: ConsumerGroupCoordinator, g: ConsumerGroup, leavingMemberId: string): number {
  const members = [...g.members.values()].filter((m) => m.memberId !== leavingMemberId);
  const classic = cc.classic.getOrCreateGroup(g.groupId);
  const built: GroupMember[] = members.map((m) => {
    const gm = new GroupMember(m.memberId, m.instanceId, m.clientId, m.clientHost, m.rebalanceTimeoutMs, m.classic?.sessionTimeoutMs ?? cc.config.consumerSessionTimeoutMs, CONSUMER_PROTOCOL_TYPE, m.classic?.protocols ?? []);
    return gm;
  });
  // Kafka `ClassicGroup.selectProtocol` over these members: the first protocol of the first member every member supports
  const common = built[0]?.protocols.map((p) => p.name).find((n) => built.every((b) => b.protocols.some((p) => p.name === n))) ?? null;
  const previous = { state: classic.state, generationId: classic.generationId, protocolType: classic.protocolType, protocolName: classic.protocolName, leaderId: classic.leaderId };
  classic.protocolType = CONSUMER_PROTOCOL_TYPE;
  classic.generationId = g.groupEpoch;
  classic.protocolName = common;
  classic.leaderId = null;
  for (const gm of built) {
    gm.assignment = encodeAssignment(cc, g.target(gm.memberId), gm.metadataFor(common));
    classic.add(gm);
  }
  classic.state = 'Stable';
  const records = [...groupTombstones(g), { key: groupMetadataKey(g.groupId), value: groupMetadataValue(cc.classic.storedGroup(classic)) }];
  const code = cc.classic.write(g.groupId, records);
  if (code !== ErrorCode.NONE) {
    for (const gm of built) classic.remove(gm.memberId);
    Object.assign(classic, previous);
    return code;
  }
  for (const m of g.members.values()) m.cancelTimers();
  cc.groups.delete(g.groupId);
  cc.classic.host.logger.info(`Downgraded consumer group ${g.groupId} to a classic group at generation ${classic.generationId} with ${built.length} member(s)`);
  cc.classic.rebalanceDowngraded(classic);
  return ErrorCode.NONE;
}

/** A new classic member id (Kafka's consumer group names them with `Uuid.randomUuid()`). */
export function newClassicMemberId(): string {
  return randomUuid();
}
