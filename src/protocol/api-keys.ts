/**
 * Names for the API keys kafkalite speaks (Kafka's `ApiKeys` enum), so code tests
 * `apiKey === ApiKey.ApiVersions` instead of a bare 18. The table is generated with the schema
 * registry (src/protocol/schemas/index.ts, scripts/gen-protocol-schemas.mjs): a new API gets its
 * name with its schemas, and the names cannot drift from the registry.
 */
import { API_KEYS } from './schemas/index.js';

export const ApiKey = API_KEYS;

/** An API's name as Kafka spells it, e.g. 'ApiVersions'. */
export type ApiName = keyof typeof ApiKey;
