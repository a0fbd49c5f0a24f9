/**
 * DescribeCluster (60) v0-1 driven through its handler (encoded and decoded at each version as on
 * the wire): cluster id, this node as broker and controller, the cluster's authorized operations
 * as Kafka grants them without an authorizer, and v1's endpoint-type errors.
 */
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { errorName } from '../../../src/protocol/error-codes.js';
import { withBroker } from '../../helpers/broker.js';
import { call } from '../group/call.js';

const DESCRIBE_CLUSTER = 60;
/** CREATE(5) ALTER(7) DESCRIBE(8) CLUSTER_ACTION(9) DESCRIBE_CONFIGS(10) ALTER_CONFIGS(11) IDEMPOTENT_WRITE(12). */
const CLUSTER_OPS = 32 + 128 + 256 + 512 + 1024 + 2048 + 4096;

describe('DescribeCluster', () => {
  test('v0 and v1: cluster id, this node as the only broker and the controller', async () => {
    await withBroker({}, async (broker) => {
      for (const v of [0, 1]) {
        const r = await call(broker, DESCRIBE_CLUSTER, v, { includeClusterAuthorizedOperations: false, endpointType: 1 });
        assert.equal(errorName(r.errorCode), 'NONE');
        assert.equal(r.clusterId, broker.logs.clusterId);
        assert.equal(r.controllerId, broker.config.nodeId);
        assert.deepEqual(r.brokers, [{ brokerId: broker.config.nodeId, host: broker.config.advertisedHost, port: broker.port, rack: null }]);
        assert.equal(r.clusterAuthorizedOperations, -2147483648);
        if (v === 1) assert.equal(r.endpointType, 1);
      }
      const ops = await call(broker, DESCRIBE_CLUSTER, 0, { includeClusterAuthorizedOperations: true });
      assert.equal(ops.clusterAuthorizedOperations, CLUSTER_OPS);
    });
  });

  test('v1: controller endpoints asked of a broker, or an unknown endpoint type, are refused', async () => {
    await withBroker({}, async (broker) => {
      const controller = await call(broker, DESCRIBE_CLUSTER, 1, { includeClusterAuthorizedOperations: false, endpointType: 2 });
      assert.equal(errorName(controller.errorCode), 'MISMATCHED_ENDPOINT_TYPE');
      // the rest of an error answer is the schema's defaults
      assert.deepEqual([controller.clusterId, controller.controllerId, controller.brokers], ['', -1, []]);
      const unknown = await call(broker, DESCRIBE_CLUSTER, 1, { includeClusterAuthorizedOperations: false, endpointType: 7 });
      assert.equal(errorName(unknown.errorCode), 'UNSUPPORTED_ENDPOINT_TYPE');
    });
  });
});
