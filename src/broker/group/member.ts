/**
 * A member of a classic group (Kafka `MemberMetadata`): its identity, timeouts, the protocols it
 * supports (metadata kept as the opaque bytes the client sent), its current assignment, and the
 * JoinGroup / SyncGroup answers it is waiting for while a rebalance runs.
 */
import type { TimerTask } from '../timer.js';

export interface GroupProtocol {
  name: string;
  metadata: Buffer;
}

export interface JoinGroupResult {
  errorCode: number;
  generationId: number;
  protocolType: string | null;
  protocolName: string | null;
  leader: string;
  memberId: string;
  members: { memberId: string; groupInstanceId: string | null; metadata: Buffer }[];
  /** JoinGroup v9 (KIP-814): the static leader rejoined a stable group and must not reassign. */
  skipAssignment?: boolean;
}

export interface SyncGroupResult {
  errorCode: number;
  protocolType: string | null;
  protocolName: string | null;
  assignment: Buffer;
}

const EMPTY = Buffer.alloc(0);

/** A JoinGroup answer carrying only an error (no generation). */
export function joinError(errorCode: number, memberId: string): JoinGroupResult {
  return { errorCode, generationId: -1, protocolType: null, protocolName: null, leader: '', memberId, members: [] };
}

/** A SyncGroup answer carrying only an error (no assignment). */
export function syncError(errorCode: number): SyncGroupResult {
  return { errorCode, protocolType: null, protocolName: null, assignment: EMPTY };
}

export class GroupMember {
  assignment: Buffer = EMPTY;
  /** Set while the member's JoinGroup waits for the rebalance to complete. */
  awaitingJoin: ((r: JoinGroupResult) => void) | undefined;
  /** Set while the member's SyncGroup waits for the leader's assignment. */
  awaitingSync: ((r: SyncGroupResult) => void) | undefined;
  /** Joined during the current rebalance (Kafka `MemberMetadata.isNew`). */
  isNew = false;
  /** Session expiry (Kafka's DelayedHeartbeat), refreshed by each heartbeat. */
  sessionTimer: TimerTask | undefined;
  /** The delay `sessionTimer` runs with: a rejoin may have changed the session timeout since. */
  sessionTimerMs = 0;

  constructor(
    public memberId: string,
    readonly groupInstanceId: string | null,
    readonly clientId: string,
    readonly clientHost: string,
    public rebalanceTimeoutMs: number,
    public sessionTimeoutMs: number,
    readonly protocolType: string,
    public protocols: GroupProtocol[],
  ) {}

  /** The member's metadata for a protocol it supports (empty when it does not). */
  metadataFor(protocol: string | null): Buffer {
    return this.protocols.find((p) => p.name === protocol)?.metadata ?? EMPTY;
  }

  /** Same protocols, names and metadata, in the same order (Kafka `MemberMetadata.matches`). */
  matches(protocols: readonly GroupProtocol[]): boolean {
    if (protocols.length !== this.protocols.length) return false;
    return protocols.every((p, i) => p.name === this.protocols[i]!.name && p.metadata.equals(this.protocols[i]!.metadata));
  }

  /** The member's first preferred protocol among `candidates` (Kafka `MemberMetadata.vote`). */
  vote(candidates: ReadonlySet<string>): string | undefined {
    return this.protocols.find((p) => candidates.has(p.name))?.name;
  }

  answerJoin(r: JoinGroupResult): boolean {
    const cb = this.awaitingJoin;
    if (cb === undefined) return false;
    this.awaitingJoin = undefined;
    this.isNew = false;
    cb(r);
    return true;
  }

  answerSync(r: SyncGroupResult): boolean {
    const cb = this.awaitingSync;
    if (cb === undefined) return false;
    this.awaitingSync = undefined;
    cb(r);
    return true;
  }

  stopSessionTimer(): void {
    this.sessionTimer?.cancel();
    this.sessionTimer = undefined;
  }
}

/** Kafka reports a member's host as Java's InetAddress.toString(): "/" + address. */
export function clientHostOf(remote: string): string {
  const i = remote.lastIndexOf(':');
  return `/${i < 0 ? remote : remote.slice(0, i)}`;
}
