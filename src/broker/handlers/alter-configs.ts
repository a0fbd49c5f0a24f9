/**
 * AlterConfigs (33): the legacy, whole-set form. Each topic resource's configs become the topic's
 * entire set of overrides (what is left out returns to its default, as in Kafka); see
 * config-changes.ts for the rules and errors. Broker resources: alterBrokerConfigs.
 */
import {
  AlterConfigs,
  type AlterConfigsRequest,
  type AlterConfigsResourceResponse,
  type AlterConfigsResponse,
} from '../../protocol/schemas/alter-configs.js';
import { ApiError, errorCodeOf, errorMessageOf } from '../api-error.js';
import { alterBrokerConfigs } from '../broker-config-changes.js';
import { AlterConfigOp, applyTopicConfigOps, ConfigResourceType, duplicateResources } from '../config-changes.js';
import type { ApiHandler } from '../handler.js';
import { ErrorCode } from '../../protocol/error-codes.js';
import { AclOperation } from '../auth/acl.js';
import { configResourceError } from '../auth/checks.js';

export const alterConfigsHandler: ApiHandler<AlterConfigsRequest, AlterConfigsResponse> = {
  api: AlterConfigs,
  minVersion: 0,
  maxVersion: 2,
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
        const ops = r.configs.map((c) => ({ name: c.name, op: AlterConfigOp.SET, value: c.value }));
        if (r.resourceType === ConfigResourceType.TOPIC) {
          const overrides = applyTopicConfigOps(broker, r.resourceName, ops, true);
          if (!request.validateOnly) {
            broker.topics.setOverrides(r.resourceName, overrides, broker.logs);
            broker.logger.info(`topic ${r.resourceName}: configs set to ${JSON.stringify(overrides)}`);
          }
        } else if (r.resourceType === ConfigResourceType.BROKER) {
          alterBrokerConfigs(broker, r.resourceName, ops, true, request.validateOnly);
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
