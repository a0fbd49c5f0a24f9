/**
 * IncrementalAlterConfigs (44, KIP-339): SET, DELETE, APPEND and SUBTRACT applied to a topic's
 * current overrides (APPEND/SUBTRACT only on LIST configs, such as cleanup.policy); see
 * config-changes.ts for the rules and errors. Broker resources: alterBrokerConfigs.
 */
import {
  IncrementalAlterConfigs,
  type AlterConfigsResourceResponse,
  type IncrementalAlterConfigsRequest,
  type IncrementalAlterConfigsResponse,
} from '../../protocol/schemas/incremental-alter-configs.js';
import { ApiError, errorCodeOf, errorMessageOf } from '../api-error.js';
import { alterBrokerConfigs } from '../broker-config-changes.js';
import { applyTopicConfigOps, ConfigResourceType, duplicateResources } from '../config-changes.js';
import type { ApiHandler } from '../handler.js';
import { ErrorCode } from '../../protocol/error-codes.js';
import { AclOperation } from '../auth/acl.js';
import { configResourceError } from '../auth/checks.js';

export const incrementalAlterConfigsHandler: ApiHandler<IncrementalAlterConfigsRequest, IncrementalAlterConfigsResponse> = {
  api: IncrementalAlterConfigs,
  minVersion: 0,
  maxVersion: 1,
  handle(request, ctx) {
    const broker = ctx.broker;
    const duplicates = duplicateResources(request.resources);
    const responses: AlterConfigsResourceResponse[] = [];
    for (const r of request.resources) {
      const out: AlterConfigsResourceResponse = { errorCode: ErrorCode.NONE, errorMessage: null, resourceType: r.resourceType, resourceName: r.resourceName };
      responses.push(out);
      try {
        if (duplicates.has(`${r.resourceType}:${r.resourceName}`)) throw new ApiError(ErrorCode.INVALID_REQUEST, 'Duplicate resource.');
        const denied = configResourceError(ctx, AclOperation.ALTER_CONFIGS, r.resourceType, r.resourceName);
        if (denied) throw new ApiError(denied);
        const ops = r.configs.map((c) => ({ name: c.name, op: c.configOperation, value: c.value }));
        if (r.resourceType === ConfigResourceType.TOPIC) {
          const overrides = applyTopicConfigOps(broker, r.resourceName, ops, false);
          if (!request.validateOnly) {
            broker.topics.setOverrides(r.resourceName, overrides, broker.logs);
            broker.logger.info(`topic ${r.resourceName}: configs now ${JSON.stringify(overrides)}`);
          }
        } else if (r.resourceType === ConfigResourceType.BROKER) {
          alterBrokerConfigs(broker, r.resourceName, ops, false, request.validateOnly);
        } else {
          throw new ApiError(ErrorCode.INVALID_REQUEST, `Unsupported resource type ${r.resourceType}`);
        }
      } catch (e) {
        out.errorCode = errorCodeOf(e);
        out.errorMessage = errorMessageOf(e);
      }
    }
    return { throttleTimeMs: 0, responses };
  },
};
