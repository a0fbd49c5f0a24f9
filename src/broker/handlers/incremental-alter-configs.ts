/**
 * IncrementalAlterConfigs (44, KIP-339): SET, DELETE, APPEND and SUBTRACT applied to a topic's
 * current overrides (APPEND/SUBTRACT only on LIST configs, such as cleanup.policy); see
 * config-changes.ts for the rules and errors. Broker resources: alterBrokerConfigs.
 */
import { IncrementalAlterConfigs, type IncrementalAlterConfigsRequest, type IncrementalAlterConfigsResponse } from '../../protocol/schemas/incremental-alter-configs.js';
import type { ApiHandler } from '../handler.js';
import { alterConfigResources } from './alter-config-resources.js';

export const incrementalAlterConfigsHandler: ApiHandler<IncrementalAlterConfigsRequest, IncrementalAlterConfigsResponse> = {
  api: IncrementalAlterConfigs,
  minVersion: 0,
  maxVersion: 1,
  handle(request, ctx) {
    const responses = alterConfigResources(ctx, request.resources, {
      validateOnly: request.validateOnly,
      replace: false,
      opsOf: (r) => r.configs.map((c) => ({ name: c.name, op: c.configOperation, value: c.value })),
    });
    return { throttleTimeMs: 0, responses };
  },
};
