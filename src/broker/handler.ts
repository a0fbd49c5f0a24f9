/**
 * What an API handler is: the API's schemas, the version range it serves, and a function from a
 * decoded request to a response body. One module per API registers one of these
 * (src/broker/handlers/); ApiVersions is built from the registry, so what is advertised is
 * exactly what is served.
 */
import type { ApiSchemaPair } from '../protocol/schemas/index.js';
import type { Broker } from './broker.js';
import type { ConnectionSecurity } from './security/connection-security.js';

/** A handler returns this when Kafka sends no response (Produce with acks=0). */
export const NO_RESPONSE: unique symbol = Symbol('no response');

export interface RequestContext {
  readonly broker: Broker;
  readonly apiKey: number;
  readonly apiVersion: number;
  readonly correlationId: number;
  readonly clientId: string;
  /** host:port of the client, for logs. */
  readonly remote: string;
  /** The connection's own state (SASL, client software), shared by its requests. */
  readonly connection: ConnectionState;
  /**
   * Runs `release` once this request's answer has been handed to the socket (or will never be):
   * memory the answer refers to (Fetch's pooled read buffers) is free for reuse from then on.
   */
  afterAnswer(release: () => void): void;
  /**
   * Gives the request's frame back to the broker's frame pool. Only for a request nothing refers to
   * once answered, and only through `afterAnswer`: a held append may be the frame's bytes until then.
   */
  recycleRequestFrame(): void;
}

export interface ConnectionState {
  /**
   * Kafka's principal string of the session (`KafkaPrincipal.toString`): `User:ANONYMOUS` until
   * authentication (SASL, a TLS client certificate) names someone; ACLs are checked against it.
   */
  principal: string;
  /** The listener the client connected to and its SASL session (src/broker/security/). */
  security?: ConnectionSecurity;
  clientSoftwareName?: string;
  clientSoftwareVersion?: string;
  /** Set when the connection must close after the current response (Kafka closes on some errors). */
  closeAfterResponse?: boolean;
}

/**
 * One API's handler. `Req` and `Res` are the generated interfaces of its schemas
 * (src/protocol/schemas/<api>.ts): the request as the codec decoded it, the response the codec
 * encodes at the request's version. A field the request's version lacks is optional in `Req`, but
 * the codec decodes every field (an absent one as its JSON default), so `request.x ?? d` with `d`
 * that default only states it; response fields left out are written as their defaults.
 */
export interface ApiHandler<Req, Res> {
  readonly api: ApiSchemaPair;
  /** Versions served (ApiVersions advertises this range, capped by the broker's runtime caps). */
  readonly minVersion: number;
  readonly maxVersion: number;
  handle(request: Req, ctx: RequestContext): Res | typeof NO_RESPONSE | Promise<Res | typeof NO_RESPONSE>;
}

/**
 * A handler of any API, as the registry and the connection hold them: the connection decodes the
 * request with the handler's own `api.request` schema and encodes its answer with `api.response`,
 * which is what ties the value to the types. (`handle` is a method, so a handler of concrete types
 * is assignable here.)
 */
export type AnyApiHandler = ApiHandler<unknown, unknown>;
