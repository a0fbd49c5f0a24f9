/**
 * AlterConfigs (33): the legacy, whole-set form. Each topic resource's configs become the topic's
 * entire set of overrides (what is left out returns to its default, as in Kafka); see
 * config-changes.ts for the rules and errors. Broker resources: alterBrokerConfigs.
 */
import { AlterConfigs, type AlterConfigsRequest, type AlterConfigsResponse } from '../../protocol/schemas/alter-configs.js';
import { AlterConfigOp } from '../config-changes.js';
import type { ApiHandler } from '../handler.js';
import { alterConfigResources } from './alter-config-resources.js';

export const alterConfigsHandler: ApiHandler<AlterConfigsRequest, AlterConfigsResponse> = {
  api: AlterConfigs,
  minVersion: 0,
  maxVersion: 2,
  handle(request, ctx) {
    const responses = alterConfigResources(ctx, request.resources, {
      validateOnly: request.validateOnly,
      replace: true,
      opsOf: (r) => r.configs.map((c) => ({ name: c.name, op: AlterConfigOp.SET, value: c.value })),
    });
    return { throttleTimeMs: 0, responses };
  },
};
