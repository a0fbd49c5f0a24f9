/**
 * DescribeCluster (60, KIP-700): the cluster id, the brokers and the controller, as a broker's
 * `KafkaApis.handleDescribeCluster` answers. In KRaft a broker names a random live broker as the
 * controller (clients cannot reach the quorum); here that is this node.
 *
 * v1 (KIP-919) carries the endpoint type the client meant: a broker serves BROKER (1); a request
 * for CONTROLLER endpoints (2) gets MISMATCHED_ENDPOINT_TYPE, any other value UNSUPPORTED_ENDPOINT_TYPE.
 *
 * No ACL guards the request itself (`AuthHelper.computeDescribeClusterResponse`); asked for,
 * `cluster_authorized_operations` is the principal's cluster operations when it may DESCRIBE the
 * cluster, else 0.
 */
import {
  DescribeCluster,
  type DescribeClusterRequest,
  type DescribeClusterResponse,
} from '../../protocol/schemas/describe-cluster.js';
import { ErrorCode } from '../../protocol/error-codes.js';
import type { ApiHandler } from '../handler.js';
import { clusterAuthorizedOperations, OPERATIONS_NOT_REQUESTED } from '../auth/checks.js';

/** `EndpointType` of DescribeClusterRequest v1. */
const ENDPOINT_BROKER = 1;
const ENDPOINT_CONTROLLER = 2;

export const describeClusterHandler: ApiHandler<DescribeClusterRequest, DescribeClusterResponse> = {
  api: DescribeCluster,
  minVersion: 0,
  maxVersion: 1,
  handle(request, ctx) {
    const broker = ctx.broker;
    const endpointType = request.endpointType ?? ENDPOINT_BROKER;
    // an error answer carries the schema's defaults, as `AuthHelper.computeDescribeClusterResponse` leaves them
    const base = { throttleTimeMs: 0, endpointType: ENDPOINT_BROKER, clusterId: '', controllerId: -1, brokers: [], clusterAuthorizedOperations: OPERATIONS_NOT_REQUESTED };
    if (endpointType === ENDPOINT_CONTROLLER) {
      return { ...base, errorCode: ErrorCode.MISMATCHED_ENDPOINT_TYPE, errorMessage: 'The request was sent to an endpoint of type BROKER, but we wanted an endpoint of type CONTROLLER' };
    }
    if (endpointType !== ENDPOINT_BROKER) {
      return { ...base, errorCode: ErrorCode.UNSUPPORTED_ENDPOINT_TYPE, errorMessage: `Unsupported endpoint type ${endpointType}` };
    }
    const nodeId = broker.config.nodeId;
    return {
      ...base,
      errorCode: ErrorCode.NONE,
      errorMessage: null,
      clusterId: broker.logs.clusterId,
      controllerId: nodeId,
      brokers: [{ brokerId: nodeId, host: broker.config.advertisedHost, port: broker.port, rack: null }],
      clusterAuthorizedOperations: clusterAuthorizedOperations(ctx, request.includeClusterAuthorizedOperations),
    };
  },
};
