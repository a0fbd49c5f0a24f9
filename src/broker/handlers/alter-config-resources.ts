/**
 * What AlterConfigs (33) and IncrementalAlterConfigs (44) share: each resource is checked (a
 * duplicate, ALTER_CONFIGS), its operations applied to a topic or the broker, and its error
 * answered per resource, as Kafka's `ConfigAdminManager` does for both. They differ only in
 * where the operations come from and whether the result replaces the whole set of overrides.
 */
import { ApiError, errorCodeOf, errorMessageOf } from '../api-error.js';
import { AclOperation } from '../auth/acl.js';
import { configResourceError } from '../auth/checks.js';
import { alterBrokerConfigs } from '../broker-config-changes.js';
import { applyTopicConfigOps, ConfigResourceType, duplicateResources, type ConfigOp } from '../config-changes.js';
import type { RequestContext } from '../handler.js';
import { ErrorCode } from '../../protocol/error-codes.js';

export interface ConfigResource {
  resourceType: number;
  resourceName: string;
}

export interface ConfigResourceResult extends ConfigResource {
  errorCode: number;
  errorMessage: string | null;
}

/** `replace`: AlterConfigs' whole-set semantics (what is left out returns to its default). */
export function alterConfigResources<R extends ConfigResource>(
  ctx: RequestContext,
  resources: readonly R[],
  options: { validateOnly: boolean; replace: boolean; opsOf: (r: R) => ConfigOp[] },
): ConfigResourceResult[] {
  const broker = ctx.broker;
  const duplicates = duplicateResources(resources);
  const responses: ConfigResourceResult[] = [];
  for (const r of resources) {
    const out: ConfigResourceResult = { errorCode: ErrorCode.NONE, errorMessage: null, resourceType: r.resourceType, resourceName: r.resourceName };
    responses.push(out);
    try {
      if (duplicates.has(`${r.resourceType}:${r.resourceName}`)) throw new ApiError(ErrorCode.INVALID_REQUEST, 'Duplicate resource.');
      const denied = configResourceError(ctx, AclOperation.ALTER_CONFIGS, r.resourceType, r.resourceName);
      if (denied) throw new ApiError(denied);
      const ops = options.opsOf(r);
      if (r.resourceType === ConfigResourceType.TOPIC) {
        const overrides = applyTopicConfigOps(broker, r.resourceName, ops, options.replace);
        if (!options.validateOnly) {
          broker.topics.setOverrides(r.resourceName, overrides, broker.logs);
          broker.logger.info(`topic ${r.resourceName}: configs now ${JSON.stringify(overrides)}`);
        }
      } else if (r.resourceType === ConfigResourceType.BROKER) {
        alterBrokerConfigs(broker, r.resourceName, ops, options.replace, options.validateOnly);
      } else {
        throw new ApiError(ErrorCode.INVALID_REQUEST, `Unsupported resource type ${r.resourceType}`);
      }
    } catch (e) {
      out.errorCode = errorCodeOf(e);
      out.errorMessage = errorMessageOf(e);
    }
  }
  return responses;
}
