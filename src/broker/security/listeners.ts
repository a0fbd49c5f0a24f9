/**
 * Kafka's listener properties: `listeners`, `advertised.listeners` and `listener.security.protocol.map`
 * (SocketServerConfigs.listenerListToEndPoints, CoreUtils.listenerListToEndPoints, KafkaConfig.validateValues).
 * Each listener is a named endpoint with one security protocol; names are upper-cased (ListenerName.normalised).
 */
import { InvalidConfigError } from '../../errors.js';

export type SecurityProtocol = 'PLAINTEXT' | 'SSL' | 'SASL_PLAINTEXT' | 'SASL_SSL';
const PROTOCOLS: readonly SecurityProtocol[] = ['PLAINTEXT', 'SSL', 'SASL_PLAINTEXT', 'SASL_SSL'];

export interface ListenerSpec {
  /** Upper-cased listener name (`SASL_SSL`, `CLIENT`, ...). */
  readonly name: string;
  readonly protocol: SecurityProtocol;
  /** Interface to bind ('' binds every interface, as Kafka's empty host does). */
  readonly host: string;
  /** 0 picks a free port. */
  readonly port: number;
  /** What Metadata tells a client of this listener (advertised.listeners, else the listener itself). */
  readonly advertisedHost: string;
  /** 0: the bound port (ListenerInfo.withEphemeralPortsCorrected). */
  readonly advertisedPort: number;
}

const ENDPOINT = /^(.*):\/\/\[?([0-9a-zA-Z\-%._:]*)\]?:(-?[0-9]+)$/;

/** `listener.security.protocol.map`: key/value split at the last ':' (Csv.parseCsvMap); a later key wins. */
export function parseProtocolMap(raw: string): Map<string, SecurityProtocol> {
  const map = new Map<string, SecurityProtocol>();
  for (const item of raw.split(',').map((s) => s.trim()).filter((s) => s !== '')) {
    const at = item.lastIndexOf(':');
    if (at <= 0) throw new InvalidConfigError(`Error parsing configuration property 'listener.security.protocol.map': ${raw}`);
    const protocol = item.slice(at + 1).trim().toUpperCase();
    if (!isProtocol(protocol)) throw new InvalidConfigError(`Invalid security protocol \`${item.slice(at + 1).trim()}\` defined in listener.security.protocol.map`);
    map.set(item.slice(0, at).trim().toUpperCase(), protocol);
  }
  return map;
}

function isProtocol(s: string): s is SecurityProtocol {
  return (PROTOCOLS as readonly string[]).includes(s);
}

export const DEFAULT_PROTOCOL_MAP = 'PLAINTEXT:PLAINTEXT,SSL:SSL,SASL_PLAINTEXT:SASL_PLAINTEXT,SASL_SSL:SASL_SSL';

interface Endpoint {
  name: string;
  host: string;
  port: number;
}

function parseEndpoints(property: string, raw: string, map: ReadonlyMap<string, SecurityProtocol>): Endpoint[] {
  const out: Endpoint[] = [];
  for (const entry of raw.split(',').map((s) => s.trim()).filter((s) => s !== '')) {
    const m = ENDPOINT.exec(entry);
    if (m === null) throw new InvalidConfigError(`Error creating broker listeners from '${raw}': Unable to parse ${entry} to a broker endpoint`);
    const name = m[1]!.trim().toUpperCase();
    if (name === '') throw new InvalidConfigError('The provided listener name is null or empty string');
    if (!map.has(name)) throw new InvalidConfigError(`Error creating broker listeners from '${raw}': No security protocol defined for listener ${name}`);
    const port = Number(m[3]);
    if (port < 0 || port > 65535) throw new InvalidConfigError(`Invalid port in ${property}: ${entry}`);
    out.push({ name, host: m[2]!, port });
  }
  const names = out.map((e) => e.name);
  if (new Set(names).size !== names.length) throw new InvalidConfigError(`Each listener must have a different name, listeners: ${raw}`);
  if (property === 'listeners') {
    const ports = out.map((e) => e.port).filter((p) => p !== 0);
    if (new Set(ports).size !== ports.length) throw new InvalidConfigError(`Each listener must have a different port, listeners: ${raw}`);
  }
  return out;
}

/** The listeners of the three properties (undefined ones take Kafka's defaults, the port/host given to startBroker). */
export function parseListeners(
  listeners: string,
  advertised: string | undefined,
  protocolMap: string | undefined,
  /** The listener built from startBroker's host/port (no `listeners` property): it advertises what it was given, as before. */
  implicit = false,
): ListenerSpec[] {
  const map = parseProtocolMap(protocolMap ?? DEFAULT_PROTOCOL_MAP);
  const bound = parseEndpoints('listeners', listeners, map);
  if (bound.length === 0) throw new InvalidConfigError('listeners must name at least one listener');
  const adv = advertised === undefined ? bound : parseEndpoints('advertised.listeners', advertised, map);
  for (const a of adv) {
    if (!bound.some((b) => b.name === a.name)) {
      throw new InvalidConfigError(`advertised.listeners listener names must be equal to or a subset of the ones defined in listeners. Found ${a.name}.`);
    }
    if (a.host === '0.0.0.0' && !implicit) {
      throw new InvalidConfigError(`advertised.listeners cannot use the nonroutable meta-address 0.0.0.0. Use a routable IP address.`);
    }
  }
  return bound.map((b) => {
    const a = adv.find((x) => x.name === b.name);
    // an advertised empty host is the local host name in Kafka; the bound host (or loopback) here
    const advertisedHost = a?.host || b.host || '127.0.0.1';
    return { name: b.name, protocol: map.get(b.name)!, host: b.host, port: b.port, advertisedHost, advertisedPort: a?.port ?? b.port };
  });
}

export function usesTls(p: SecurityProtocol): boolean {
  return p === 'SSL' || p === 'SASL_SSL';
}

export function usesSasl(p: SecurityProtocol): boolean {
  return p === 'SASL_PLAINTEXT' || p === 'SASL_SSL';
}
