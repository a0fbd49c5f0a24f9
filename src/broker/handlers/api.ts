/** The schema pair of an API key, for handler modules (fails at load time if the codec lacks it). */
import { schemaForApi, type ApiSchemaPair } from '../../protocol/schemas/index.js';

export function apiSchemas(apiKey: number): ApiSchemaPair {
  const s = schemaForApi(apiKey);
  if (s === undefined) throw new Error(`no protocol schema for API key ${apiKey}`);
  return s;
}
