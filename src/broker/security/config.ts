/**
 * The security properties of the broker, taken out of the property set before config.ts sees it
 * (as the group and transaction coordinators take theirs): `listeners`, `advertised.listeners`,
 * `listener.security.protocol.map`, `ssl.*`, `sasl.*`, `listener.name.<l>.*`,
 * `connections.max.reauth.ms`, `connection.failed.authentication.delay.ms`, `sasl.server.max.receive.size`.
 * Everything is checked at start: a listener with a bad key store or JAAS entry fails the start, as in Kafka.
 *
 * Users: PLAIN users come from the listener's `listener.name.<l>.plain.sasl.jaas.config`
 * (PlainLoginModule `user_<name>="<password>"` options) and from `startBroker({ users })` /
 * `serve --user name:password` (kafkalite's shorthand, which also stores SCRAM-SHA-256/512
 * credentials for them). SCRAM users come from the credential store (scram-store.ts).
 */
import { InvalidConfigError } from '../../errors.js';
import { parseJaasConfig } from './jaas.js';
import { parseListeners, usesSasl, usesTls, type ListenerSpec } from './listeners.js';
import { DEFAULT_UNSECURED_VALIDATOR, type UnsecuredValidatorOptions } from './oauthbearer.js';
import { listenerTls, type ListenerTls } from './tls.js';

export const SUPPORTED_MECHANISMS = ['PLAIN', 'SCRAM-SHA-256', 'SCRAM-SHA-512', 'OAUTHBEARER'] as const;

export interface ListenerSasl {
  /** sasl.enabled.mechanisms, in the order given. */
  readonly mechanisms: readonly string[];
  /** PLAIN users: name → password. */
  readonly plainUsers: ReadonlyMap<string, string>;
  readonly oauth: UnsecuredValidatorOptions;
  /** connections.max.reauth.ms per mechanism (0: no session expiry). */
  readonly maxReauthMs: ReadonlyMap<string, number>;
}

export interface ListenerSecurity {
  readonly spec: ListenerSpec;
  readonly tls: ListenerTls | undefined;
  readonly sasl: ListenerSasl | undefined;
}

export interface SecurityConfig {
  readonly listeners: readonly ListenerSecurity[];
  /** connection.failed.authentication.delay.ms (Kafka default 100). */
  readonly failedAuthenticationDelayMs: number;
  /**
   * sasl.server.max.receive.size (Kafka default 524288): the largest frame a connection on a SASL
   * listener may send before it is authenticated (SaslServerAuthenticator's NetworkReceive bound).
   */
  readonly saslServerMaxReceiveSize: number;
}

const OWN_KEYS = new Set(['listeners', 'advertised.listeners', 'listener.security.protocol.map', 'connections.max.reauth.ms', 'connection.failed.authentication.delay.ms']);

/** BrokerSecurityConfigs.DEFAULT_SASL_SERVER_MAX_RECEIVE_SIZE. */
export const DEFAULT_SASL_SERVER_MAX_RECEIVE_SIZE = 524288;

export function isSecurityProperty(name: string): boolean {
  return OWN_KEYS.has(name) || name.startsWith('ssl.') || name.startsWith('sasl.') || name.startsWith('listener.name.');
}

/** Splits `props` into the security properties and the rest. */
export function takeSecurityProperties(props: Readonly<Record<string, string>>): { security: Record<string, string>; rest: Record<string, string> } {
  const security: Record<string, string> = {};
  const rest: Record<string, string> = {};
  for (const [k, v] of Object.entries(props)) (isSecurityProperty(k) ? security : rest)[k] = v;
  return { security, rest };
}

function nonNegativeInt(name: string, raw: string): number {
  const n = Number(raw.trim());
  if (!Number.isSafeInteger(n) || n < 0) throw new InvalidConfigError(`Invalid value ${raw} for configuration ${name}: must be a non-negative integer`);
  return n;
}

/**
 * The security config from the properties. Without `listeners`, one PLAINTEXT listener on
 * `host:port` (startBroker's options, `serve --port`); `users` are kafkalite's shorthand PLAIN users.
 */
export function securityConfigFromProperties(
  props: Readonly<Record<string, string>>,
  defaults: { host: string; port: number; advertisedHost: string },
  users: ReadonlyMap<string, string>,
  warn: (message: string) => void,
): SecurityConfig {
  const listenersRaw = props['listeners'] ?? `PLAINTEXT://${defaults.host}:${defaults.port}`;
  const advertised = props['advertised.listeners'] ?? (props['listeners'] === undefined ? `PLAINTEXT://${defaults.advertisedHost}:${defaults.port}` : undefined);
  const specs = parseListeners(listenersRaw, advertised, props['listener.security.protocol.map'], props['listeners'] === undefined);
  for (const k of Object.keys(props)) {
    if (k === 'sasl.jaas.config') warn('sasl.jaas.config without a listener.name.<listener>.<mechanism>. prefix is ignored by a broker (JaasContext.loadServerContext)');
    const m = /^listener\.name\.([^.]+)\./.exec(k);
    if (m !== null && !specs.some((s) => s.name.toLowerCase() === m[1])) warn(`${k} names no listener in listeners`);
  }
  const listeners = specs.map((spec): ListenerSecurity => {
    const prefix = `listener.name.${spec.name.toLowerCase()}.`;
    const prop = (key: string): string | undefined => props[prefix + key] ?? props[key];
    let tls: ListenerTls | undefined;
    if (usesTls(spec.protocol)) {
      // SASL_SSL takes only the listener-prefixed ssl.client.auth (KIP-684, ChannelBuilders.create)
      const clientAuth = spec.protocol === 'SASL_SSL' ? props[prefix + 'ssl.client.auth'] : prop('ssl.client.auth');
      tls = listenerTls(prop, clientAuth);
    }
    let sasl: ListenerSasl | undefined;
    if (usesSasl(spec.protocol)) {
      const enabled = (prop('sasl.enabled.mechanisms') ?? 'PLAIN,SCRAM-SHA-256,SCRAM-SHA-512').split(',').map((s) => s.trim()).filter((s) => s !== '');
      for (const mech of enabled) {
        if (!(SUPPORTED_MECHANISMS as readonly string[]).includes(mech)) {
          throw new InvalidConfigError(`Invalid value ${mech} in sasl.enabled.mechanisms for listener ${spec.name}: kafkalite serves ${SUPPORTED_MECHANISMS.join(', ')}`);
        }
      }
      const plainUsers = new Map(users);
      const jaas = (mech: string): ReturnType<typeof parseJaasConfig> | undefined => {
        const key = `${prefix}${mech.toLowerCase()}.sasl.jaas.config`;
        return props[key] === undefined ? undefined : parseJaasConfig(key, props[key]);
      };
      const plain = jaas('PLAIN');
      if (plain !== undefined) {
        for (const [k, v] of plain.options) if (k.startsWith('user_')) plainUsers.set(k.slice(5), v);
      }
      const oauthEntry = jaas('OAUTHBEARER');
      const oauth: UnsecuredValidatorOptions = { ...DEFAULT_UNSECURED_VALIDATOR };
      if (oauthEntry !== undefined) {
        const o = oauthEntry.options;
        oauth.principalClaim = o.get('unsecuredValidatorPrincipalClaimName') ?? oauth.principalClaim;
        oauth.scopeClaim = o.get('unsecuredValidatorScopeClaimName') ?? oauth.scopeClaim;
        oauth.requiredScope = (o.get('unsecuredValidatorRequiredScope') ?? '').split(' ').filter((s) => s !== '');
        const skew = o.get('unsecuredValidatorAllowableClockSkewMs');
        if (skew !== undefined) oauth.clockSkewMs = nonNegativeInt('unsecuredValidatorAllowableClockSkewMs', skew);
      }
      const maxReauthMs = new Map<string, number>();
      for (const mech of enabled) {
        const raw = props[`${prefix}${mech.toLowerCase()}.connections.max.reauth.ms`] ?? prop('connections.max.reauth.ms');
        maxReauthMs.set(mech, raw === undefined ? 0 : nonNegativeInt('connections.max.reauth.ms', raw));
      }
      sasl = { mechanisms: enabled, plainUsers, oauth, maxReauthMs };
    }
    return { spec, tls, sasl };
  });
  const delay = props['connection.failed.authentication.delay.ms'];
  const maxReceive = props['sasl.server.max.receive.size'];
  return {
    listeners,
    failedAuthenticationDelayMs: delay === undefined ? 100 : nonNegativeInt('connection.failed.authentication.delay.ms', delay),
    saslServerMaxReceiveSize: maxReceive === undefined ? DEFAULT_SASL_SERVER_MAX_RECEIVE_SIZE : nonNegativeInt('sasl.server.max.receive.size', maxReceive),
  };
}
