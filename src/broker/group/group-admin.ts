/**
 * The admin views of groups (Kafka `GroupCoordinator.handleListGroups` / `handleDescribeGroups` /
 * `handleDeleteGroups`). A group that does not exist describes as Dead with no error, as the
 * classic coordinator answers; deleting one answers GROUP_ID_NOT_FOUND, and only an Empty group
 * can be deleted (NON_EMPTY_GROUP otherwise): its offsets and metadata get tombstones.
 */
import type { GroupCoordinator } from './coordinator.js';
import { groupTombstones } from './offset-ops.js';
import { ErrorCode } from '../../protocol/error-codes.js';
import type { DescribedGroup } from '../../protocol/schemas/describe-groups.js';
import { CONSUMER_PROTOCOL_TYPE } from '../../internal-topics/consumer-protocol.js';

/** Kafka's group type names (ListGroups v5 `Group.GroupType`). */
export const CLASSIC_GROUP_TYPE = 'classic';
export const CONSUMER_GROUP_TYPE = 'consumer';

export interface ListedGroup {
  groupId: string;
  protocolType: string;
  groupState: string;
  groupType: string;
}

/**
 * ListGroups with the v4 state filter and v5 type filter (Kafka `GroupMetadataManager.listGroups`:
 * states matched case-insensitively and trimmed, types case-insensitively; a type Kafka does not
 * know matches no group).
 */
export function listGroups(c: GroupCoordinator, statesFilter: readonly string[], typesFilter: readonly string[]): ListedGroup[] {
  const states = new Set(statesFilter.map((s) => s.toLowerCase().trim()));
  const types = new Set(typesFilter.map((s) => s.toLowerCase()));
  const out: ListedGroup[] = [];
  if (types.size === 0 || types.has(CLASSIC_GROUP_TYPE)) {
    for (const g of c.groups.values()) {
      // the classic entry of a KIP-848 group only holds its committed offsets
      if (c.consumer.group(g.groupId) !== undefined) continue;
      if (g.is('Dead') || (states.size > 0 && !states.has(g.state.toLowerCase()))) continue;
      out.push({ groupId: g.groupId, protocolType: g.protocolType ?? '', groupState: g.state, groupType: CLASSIC_GROUP_TYPE });
    }
  }
  if (types.size === 0 || types.has(CONSUMER_GROUP_TYPE)) {
    for (const g of c.consumer.groups.values()) {
      if (states.size > 0 && !states.has(g.state.toLowerCase())) continue;
      out.push({ groupId: g.groupId, protocolType: CONSUMER_PROTOCOL_TYPE, groupState: g.state, groupType: CONSUMER_GROUP_TYPE });
    }
  }
  return out.sort((a, b) => (a.groupId < b.groupId ? -1 : a.groupId > b.groupId ? 1 : 0));
}

// the answer's shape is DescribeGroups' own (the generated schema types)
export type { DescribedGroup };

/** Kafka `GroupMetadata.summary`: member metadata and assignments only once the group is Stable. */
export function describeGroup(c: GroupCoordinator, groupId: string): DescribedGroup {
  if (!c.isActive) return { errorCode: ErrorCode.NOT_COORDINATOR, groupId, groupState: '', protocolType: '', protocolData: '', members: [] };
  const g = c.group(groupId);
  // a KIP-848 group is not described by the classic API: Kafka 4.0 below v6 answers Dead
  if (g === undefined || c.consumer.group(groupId) !== undefined) return { errorCode: ErrorCode.NONE, groupId, groupState: 'Dead', protocolType: '', protocolData: '', members: [] };
  const stable = g.is('Stable');
  const empty = Buffer.alloc(0);
  return {
    errorCode: ErrorCode.NONE,
    groupId,
    groupState: g.state,
    protocolType: g.protocolType ?? '',
    protocolData: stable ? (g.protocolName ?? '') : '',
    members: [...g.members.values()].map((m) => ({
      memberId: m.memberId,
      groupInstanceId: m.groupInstanceId,
      clientId: m.clientId,
      clientHost: m.clientHost,
      memberMetadata: stable ? m.metadataFor(g.protocolName) : empty,
      memberAssignment: stable ? m.assignment : empty,
    })),
  };
}

export function deleteGroup(c: GroupCoordinator, groupId: string): number {
  if (!c.isActive) return ErrorCode.NOT_COORDINATOR;
  // a KIP-848 group: only an empty one is deleted (Kafka `ConsumerGroup.validateDeleteGroup`), with its offsets below
  const consumerGroup = c.consumer.group(groupId);
  if (consumerGroup !== undefined) {
    if (consumerGroup.members.size > 0) return ErrorCode.NON_EMPTY_GROUP;
    const code = c.consumer.deleteGroup(consumerGroup);
    if (code !== ErrorCode.NONE) return code;
  }
  const g = c.group(groupId);
  if (consumerGroup !== undefined && g === undefined) return ErrorCode.NONE;
  if (g === undefined || g.is('Dead')) return ErrorCode.GROUP_ID_NOT_FOUND;
  if (!g.is('Empty')) return ErrorCode.NON_EMPTY_GROUP;
  const code = c.write(groupId, groupTombstones(g));
  if (code !== ErrorCode.NONE) return code;
  c.removeGroup(g);
  return ErrorCode.NONE;
}
