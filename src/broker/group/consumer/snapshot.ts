/**
 * The state of a consumer group before an operation changes it, to go back to when the
 * operation's records fail to reach `__consumer_offsets` (Kafka's coordinator runtime keeps its
 * state in timeline structures and reverts them to the last snapshot when a write fails, so a
 * change only takes effect once its records are written). Assignments are held by reference: the
 * reconciliation and the assignors build new ones and never change one in place.
 */
import type { ConsumerGroup } from './group.js';
import type { ConsumerGroupMember } from './member.js';

/** The fields of a member an operation may change (its timers are the coordinator's to re-arm). */
type MemberFields = Pick<
  ConsumerGroupMember,
  | 'memberEpoch'
  | 'previousMemberEpoch'
  | 'state'
  | 'instanceId'
  | 'rackId'
  | 'clientId'
  | 'clientHost'
  | 'rebalanceTimeoutMs'
  | 'subscribedTopicNames'
  | 'subscribedTopicRegex'
  | 'serverAssignor'
  | 'canDescribeTopic'
  | 'assigned'
  | 'pendingRevocation'
  | 'classic'
>;

function fieldsOf(m: ConsumerGroupMember): MemberFields {
  return {
    memberEpoch: m.memberEpoch,
    previousMemberEpoch: m.previousMemberEpoch,
    state: m.state,
    instanceId: m.instanceId,
    rackId: m.rackId,
    clientId: m.clientId,
    clientHost: m.clientHost,
    rebalanceTimeoutMs: m.rebalanceTimeoutMs,
    subscribedTopicNames: m.subscribedTopicNames,
    subscribedTopicRegex: m.subscribedTopicRegex,
    serverAssignor: m.serverAssignor,
    canDescribeTopic: m.canDescribeTopic,
    assigned: m.assigned,
    pendingRevocation: m.pendingRevocation,
    classic: m.classic,
  };
}

export class GroupSnapshot {
  private readonly groupEpoch: number;
  private readonly assignmentEpoch: number;
  private readonly subscriptionMetadata: ConsumerGroup['subscriptionMetadata'];
  private readonly replacesClassicGroup: boolean;
  private readonly members: [ConsumerGroupMember, MemberFields][];
  private readonly staticMembers: [string, string][];
  private readonly targets: [string, ReturnType<ConsumerGroup['target']>][];

  constructor(private readonly g: ConsumerGroup) {
    this.groupEpoch = g.groupEpoch;
    this.assignmentEpoch = g.assignmentEpoch;
    this.subscriptionMetadata = g.subscriptionMetadata;
    this.replacesClassicGroup = g.replacesClassicGroup;
    this.members = [...g.members.values()].map((m) => [m, fieldsOf(m)]);
    this.staticMembers = [...g.staticMembers];
    this.targets = [...g.targets];
  }

  /**
   * Puts the group back as it was. Members the operation added are gone (their timers cancelled);
   * the returned members are those the group holds again, for the coordinator to re-arm their timers.
   */
  revert(): ConsumerGroupMember[] {
    const g = this.g;
    const kept = new Set(this.members.map(([m]) => m));
    for (const m of g.members.values()) if (!kept.has(m)) m.cancelTimers();
    g.groupEpoch = this.groupEpoch;
    g.assignmentEpoch = this.assignmentEpoch;
    g.subscriptionMetadata = this.subscriptionMetadata;
    g.replacesClassicGroup = this.replacesClassicGroup;
    g.members.clear();
    for (const [m, fields] of this.members) {
      Object.assign(m, fields);
      g.members.set(m.memberId, m);
    }
    g.staticMembers.clear();
    for (const [instanceId, memberId] of this.staticMembers) g.staticMembers.set(instanceId, memberId);
    g.targets.clear();
    for (const [memberId, target] of this.targets) g.targets.set(memberId, target);
    return this.members.map(([m]) => m);
  }
}
