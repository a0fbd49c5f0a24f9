/**
 * ApiVersions (18), built from the handler registry (what is advertised is what is served).
 *
 * Any version is accepted (KIP-511): above the served range the answer is a v0 body with
 * UNSUPPORTED_VERSION and this API's own range, so the client retries lower instead of losing the connection
 * (`ApiVersionsRequest.getErrorResponse`; librdkafka falls back to 0.10-era guesses if the
 * connection closes, librdkafka 2.0.2's `broker.version.fallback`). v3+ clients name their software; Kafka checks the names
 * against a pattern and answers INVALID_REQUEST (librdkafka then retries v0).
 */
import { ApiVersions, type ApiVersionsRequest, type ApiVersionsResponse } from '../../protocol/schemas/api-versions.js';
import type { ApiHandler } from '../handler.js';
import { ApiKey } from '../../protocol/api-keys.js';
import { ErrorCode } from '../../protocol/error-codes.js';

const SOFTWARE_PATTERN = /^[a-zA-Z0-9](?:[a-zA-Z0-9\-.]*[a-zA-Z0-9])?$/;
export const API_VERSIONS_MAX = 4;

export const apiVersionsHandler: ApiHandler<ApiVersionsRequest, ApiVersionsResponse> = {
  api: ApiVersions,
  minVersion: 0,
  maxVersion: API_VERSIONS_MAX,
  handle(request, ctx) {
    const broker = ctx.broker;
    const apiKeys = broker.advertisedApis();
    const own = apiKeys.find((k) => k.apiKey === ApiKey.ApiVersions) ?? { apiKey: ApiKey.ApiVersions, minVersion: 0, maxVersion: API_VERSIONS_MAX };
    if (ctx.apiVersion > own.maxVersion) {
      return { errorCode: ErrorCode.UNSUPPORTED_VERSION, apiKeys: [own] };
    }
    if (ctx.apiVersion >= 3) {
      const name = request.clientSoftwareName ?? '';
      const version = request.clientSoftwareVersion ?? '';
      if (!SOFTWARE_PATTERN.test(name) || !SOFTWARE_PATTERN.test(version)) {
        return { errorCode: ErrorCode.INVALID_REQUEST, apiKeys, throttleTimeMs: 0 };
      }
      ctx.connection.clientSoftwareName = name;
      ctx.connection.clientSoftwareVersion = version;
    }
    return { errorCode: ErrorCode.NONE, apiKeys, throttleTimeMs: 0 };
  },
};
