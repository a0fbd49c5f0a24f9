/**
 * The authorization checks handlers make, as Kafka's `AuthHelper` and `KafkaApis` make them: each
 * a one-line call from a handler, true/passing when no authorizer is configured
 * (`authorizer.class.name` empty). The requester is the connection's principal (`User:ANONYMOUS`
 * until a SASL or TLS identity replaces it) and the client's IP as text, which host ACLs compare
 * exactly (`StandardAuthorizerData`: no CIDR, no names).
 */
import { ErrorCode } from '../../protocol/error-codes.js';
import { normalizeIp } from '../config.js';
import { ApiError } from '../api-error.js';
import type { RequestContext } from '../handler.js';
import { AclOperation, CLUSTER_NAME, ResourceType } from './acl.js';
import { allOperations, type Requester } from './standard-authorizer.js';

/** The default of authorized-operations fields when the client did not ask (the JSONs' Integer.MIN_VALUE). */
export const OPERATIONS_NOT_REQUESTED = -2147483648;

/** `host:port` (IPv6 without brackets, as Connection.remote has it) → the IP. */
export function hostOfRemote(remote: string): string {
  const i = remote.lastIndexOf(':');
  return normalizeIp(i < 0 ? remote : remote.slice(0, i));
}

export function requesterOf(ctx: RequestContext): Requester {
  return { principal: ctx.connection.principal, host: hostOfRemote(ctx.remote) };
}

/** `AuthHelper.authorize`. */
export function authorized(ctx: RequestContext, operation: number, resourceType: number, name: string): boolean {
  const a = ctx.broker.authorizer;
  return a === undefined || a.authorize(requesterOf(ctx), operation, resourceType, name);
}

export function clusterAuthorized(ctx: RequestContext, operation: number): boolean {
  return authorized(ctx, operation, ResourceType.CLUSTER, CLUSTER_NAME);
}

/**
 * The message of the ClusterAuthorizationException that `AuthHelper.authorizeClusterOperation`
 * throws on the controller for the APIs a KRaft broker forwards there (ElectLeaders, the
 * reassignments, AlterUserScramCredentials): Kafka's "Request <request> is not authorized.",
 * where Kafka prints its internal request object; here the API, version and principal.
 */
export function clusterOperationDeniedMessage(ctx: RequestContext): string {
  return `Request (apiKey=${ctx.apiKey}, apiVersion=${ctx.apiVersion}, correlationId=${ctx.correlationId}, principal=${ctx.connection.principal}) is not authorized.`;
}

/** Throws TOPIC_AUTHORIZATION_FAILED unless the operation on the topic is allowed: for handlers whose per-partition catch answers the error. */
export function requireTopic(ctx: RequestContext, operation: number, topic: string): void {
  if (!authorized(ctx, operation, ResourceType.TOPIC, topic)) throw new ApiError(ErrorCode.TOPIC_AUTHORIZATION_FAILED);
}

/** Whether the principal may DESCRIBE the topic (Metadata listing, OffsetFetch of all partitions). */
export function canDescribeTopic(ctx: RequestContext, topic: string): boolean {
  return authorized(ctx, AclOperation.DESCRIBE, ResourceType.TOPIC, topic);
}

/** GROUP_AUTHORIZATION_FAILED when the operation on the group is denied, else NONE. */
export function groupError(ctx: RequestContext, operation: number, groupId: string): number {
  return authorized(ctx, operation, ResourceType.GROUP, groupId) ? ErrorCode.NONE : ErrorCode.GROUP_AUTHORIZATION_FAILED;
}

/** TRANSACTIONAL_ID_AUTHORIZATION_FAILED when the operation on the transactional id is denied, else NONE. */
export function transactionalIdError(ctx: RequestContext, operation: number, transactionalId: string): number {
  return authorized(ctx, operation, ResourceType.TRANSACTIONAL_ID, transactionalId) ? ErrorCode.NONE : ErrorCode.TRANSACTIONAL_ID_AUTHORIZATION_FAILED;
}

/** CreateTopics and Metadata auto-creation: CREATE on the cluster, else CREATE on the topic (`KafkaApis`, `ControllerApis.createTopics`). */
export function canCreateTopic(ctx: RequestContext, topic: string): boolean {
  return clusterAuthorized(ctx, AclOperation.CREATE) || authorized(ctx, AclOperation.CREATE, ResourceType.TOPIC, topic);
}

/**
 * DeleteTopics' order (`ControllerApis.deleteTopics`): DELETE on the cluster grants everything; else
 * without DESCRIBE the topic's existence is not revealed, and a known topic needs DELETE.
 */
export function deleteTopicError(ctx: RequestContext, topic: string | null, exists: boolean): number {
  if (topic === null || clusterAuthorized(ctx, AclOperation.DELETE)) return ErrorCode.NONE;
  if (!authorized(ctx, AclOperation.DESCRIBE, ResourceType.TOPIC, topic)) return ErrorCode.TOPIC_AUTHORIZATION_FAILED;
  if (exists && !authorized(ctx, AclOperation.DELETE, ResourceType.TOPIC, topic)) return ErrorCode.TOPIC_AUTHORIZATION_FAILED;
  return ErrorCode.NONE;
}

/**
 * InitProducerId without a transactional id (KIP-679, `KafkaApis.handleInitProducerIdRequest`):
 * IDEMPOTENT_WRITE on the cluster, or WRITE on at least one topic.
 */
export function idempotentWriteError(ctx: RequestContext): number {
  const a = ctx.broker.authorizer;
  if (a === undefined || clusterAuthorized(ctx, AclOperation.IDEMPOTENT_WRITE)) return ErrorCode.NONE;
  return a.authorizeByResourceType(requesterOf(ctx), AclOperation.WRITE, ResourceType.TOPIC) ? ErrorCode.NONE : ErrorCode.CLUSTER_AUTHORIZATION_FAILED;
}

/** An authorized-operations field: the bitfield when asked (every supported op without an authorizer), else Kafka's default. */
export function authorizedOperations(ctx: RequestContext, requested: boolean | undefined, resourceType: number, name: string): number {
  if (requested !== true) return OPERATIONS_NOT_REQUESTED;
  const a = ctx.broker.authorizer;
  return a === undefined ? allOperations(resourceType) : a.authorizedOperations(requesterOf(ctx), resourceType, name);
}

/** Cluster operations (Metadata v8-10, DescribeCluster): only for a principal with DESCRIBE on the cluster, else 0. */
export function clusterAuthorizedOperations(ctx: RequestContext, requested: boolean | undefined): number {
  if (requested !== true) return OPERATIONS_NOT_REQUESTED;
  if (!clusterAuthorized(ctx, AclOperation.DESCRIBE)) return 0;
  return authorizedOperations(ctx, true, ResourceType.CLUSTER, CLUSTER_NAME);
}

/** Whether the principal may DESCRIBE every one of the topics (ConsumerGroupHeartbeat subscriptions, ConsumerGroupDescribe assignments). */
export function topicsDescribable(ctx: RequestContext, topics: Iterable<string>): boolean {
  for (const t of topics) if (!canDescribeTopic(ctx, t)) return false;
  return true;
}

/** Topics the operation is allowed on, and the others (OffsetCommit, OffsetDelete, TxnOffsetCommit answer those per topic). */
export function splitByTopicAccess<T extends { name: string }>(ctx: RequestContext, operation: number, topics: readonly T[]): { allowed: T[]; denied: T[] } {
  const allowed: T[] = [];
  const denied: T[] = [];
  for (const t of topics) (authorized(ctx, operation, ResourceType.TOPIC, t.name) ? allowed : denied).push(t);
  return { allowed, denied };
}

/** ConfigResource.Type codes checked by DescribeConfigs/AlterConfigs. */
const CONFIG_TOPIC = 2;
const CONFIG_BROKER = 4;
const CONFIG_BROKER_LOGGER = 8;
const CONFIG_GROUP = 32;

/**
 * DescribeConfigs/AlterConfigs/IncrementalAlterConfigs (`ConfigHelper`, `ControllerApis`): the
 * operation on the resource the config resource names (broker ones on the cluster); the error for a
 * denial, else NONE.
 */
export function configResourceError(ctx: RequestContext, operation: number, configResourceType: number, name: string): number {
  if (configResourceType === CONFIG_TOPIC) return authorized(ctx, operation, ResourceType.TOPIC, name) ? ErrorCode.NONE : ErrorCode.TOPIC_AUTHORIZATION_FAILED;
  if (configResourceType === CONFIG_GROUP) return authorized(ctx, operation, ResourceType.GROUP, name) ? ErrorCode.NONE : ErrorCode.GROUP_AUTHORIZATION_FAILED;
  if (configResourceType === CONFIG_BROKER || configResourceType === CONFIG_BROKER_LOGGER) return clusterAuthorized(ctx, operation) ? ErrorCode.NONE : ErrorCode.CLUSTER_AUTHORIZATION_FAILED;
  return ErrorCode.NONE;
}
