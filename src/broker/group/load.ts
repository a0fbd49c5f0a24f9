/**
 * Rebuilding the coordinator's groups from __consumer_offsets when the broker opens (Kafka
 * `GroupMetadataManager.loadGroupsAndOffsets`): the last record per key wins, tombstones remove.
 * A group stored with members comes back Stable at its generation, so its consumers' heartbeats,
 * commits and syncs carry on after a restart; each member's session timer starts, so members
 * that do not come back expire. Groups known only through offsets come back Empty. KIP-848
 * groups come back from their consumer-group records (consumer/records.ts) at their epochs.
 */
import type { GroupCoordinator } from './coordinator.js';
import { ClassicGroup } from './group.js';
import { GroupMember } from './member.js';
import { replayOffsetsRecords } from '../../internal-topics/offsets-replay.js';
import type { PendingTxnOffsetRecord } from '../../internal-topics/offsets-txn-settle.js';

export function loadGroups(c: GroupCoordinator): { groups: number; offsets: number } {
  const pending: PendingTxnOffsetRecord[] = [];
  const replayed = replayOffsetsRecords(
    c.store.load(
      (what) => c.host.logger.warn(`skipping unreadable group record at ${what}`),
      (open) => pending.push(...open),
    ),
  );
  // transactional offsets whose marker is not in the log yet wait for it again (txn-offsets.ts)
  for (const p of pending) c.txnOffsets.add(p.producerId, { groupId: p.group, topic: p.topic, partition: p.partition, value: p.value, superseded: p.superseded });
  const now = Date.now();
  let offsetCount = 0;
  for (const [groupId, { stored, consumer, offsets: live }] of replayed) {
    // a KIP-848 group: its consumer-group records (the classic entry below keeps its offsets)
    if (consumer !== null) c.consumer.restore(groupId, consumer);
    const g = new ClassicGroup(groupId, now);
    if (stored !== null) {
      g.protocolType = stored.protocolType === '' ? null : stored.protocolType;
      g.generationId = stored.generation;
      g.protocolName = stored.protocol;
      g.leaderId = stored.leader;
      if (stored.currentStateTimestamp >= 0n) g.currentStateTimestamp = stored.currentStateTimestamp;
      for (const sm of stored.members) {
        const protocols = g.protocolName === null ? [] : [{ name: g.protocolName, metadata: sm.subscription }];
        const member = new GroupMember(sm.memberId, sm.groupInstanceId, sm.clientId, sm.clientHost, sm.rebalanceTimeout < 0 ? sm.sessionTimeout : sm.rebalanceTimeout, sm.sessionTimeout, stored.protocolType, protocols);
        member.assignment = sm.assignment;
        g.members.set(member.memberId, member);
        if (member.groupInstanceId !== null) g.staticMembers.set(member.groupInstanceId, member.memberId);
      }
      if (g.members.size > 0) {
        g.state = 'Stable';
        if (g.leaderId === null || !g.members.has(g.leaderId)) g.leaderId = g.members.keys().next().value ?? null;
      }
    }
    for (const o of live) g.setOffset(o.topic, o.partition, o.value);
    offsetCount += live.length;
    c.groups.set(groupId, g);
    for (const m of g.members.values()) c.scheduleSessionExpiry(g, m);
  }
  return { groups: c.groups.size, offsets: offsetCount };
}
