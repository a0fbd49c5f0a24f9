/**
 * Dynamic broker configs (Kafka `DynamicBrokerConfig`, KIP-226): the log defaults a running broker
 * takes from AlterConfigs / IncrementalAlterConfigs on the BROKER resource, per node (resource
 * name = node id) or cluster-wide (resource name ""). Per-node values win over cluster-wide ones,
 * which win over the static properties (`DescribeConfigs` sources DYNAMIC_BROKER_CONFIG,
 * DYNAMIC_DEFAULT_BROKER_CONFIG, STATIC_BROKER_CONFIG). Kafka keeps them in the metadata log;
 * kafkalite keeps them in `kafkalite-broker-configs.json` in the data directory, read at start.
 * Only the log defaults (`DynamicLogConfig`: the broker synonyms of topic configs) change here.
 */
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { InvalidConfigError } from '../errors.js';
import { atomicWriteFileSync } from '../storage/fs-util.js';
import type { LogConfig } from '../storage/log-config.js';
import { BROKER_SYNONYMS, brokerConfigFromProperties, DEFAULT_BROKER_CONFIG, type BrokerConfig } from './config.js';

export const BROKER_CONFIGS_FILE = 'kafkalite-broker-configs.json';

/** Broker properties that can change at runtime here: the log defaults but the removed message format. */
export function isDynamicBrokerConfig(name: string): boolean {
  return BROKER_SYNONYMS[name] !== undefined && name !== 'log.message.format.version';
}

export class DynamicBrokerConfigs {
  private constructor(
    private readonly dataDir: string,
    /** resource name "" */
    public clusterDefault: Readonly<Record<string, string>>,
    /** resource name = this node's id */
    public perBroker: Readonly<Record<string, string>>,
  ) {}

  static load(dataDir: string): DynamicBrokerConfigs {
    const path = join(dataDir, BROKER_CONFIGS_FILE);
    if (!existsSync(path)) return new DynamicBrokerConfigs(dataDir, {}, {});
    let parsed: { clusterDefault?: unknown; perBroker?: unknown };
    try {
      parsed = JSON.parse(readFileSync(path, 'utf8')) as typeof parsed;
    } catch (e) {
      throw new InvalidConfigError(`${path}: not valid JSON (${(e as Error).message})`);
    }
    const strings = (v: unknown, what: string): Record<string, string> => {
      if (v === undefined) return {};
      if (typeof v !== 'object' || v === null) throw new InvalidConfigError(`${path}: "${what}" is not an object`);
      const out: Record<string, string> = {};
      for (const [k, x] of Object.entries(v)) {
        if (typeof x !== 'string' || !isDynamicBrokerConfig(k)) throw new InvalidConfigError(`${path}: ${what}.${k} is not a dynamic broker config`);
        out[k] = x;
      }
      return out;
    };
    return new DynamicBrokerConfigs(dataDir, strings(parsed.clusterDefault, 'clusterDefault'), strings(parsed.perBroker, 'perBroker'));
  }

  /** The configs of one resource ("" or the node id). */
  of(clusterWide: boolean): Readonly<Record<string, string>> {
    return clusterWide ? this.clusterDefault : this.perBroker;
  }

  /**
   * The log defaults the static properties and the given dynamic sets make (InvalidConfigError for
   * a bad value): what topics without an override of their own get.
   */
  static logConfigOf(config: BrokerConfig, clusterDefault: Readonly<Record<string, string>>, perBroker: Readonly<Record<string, string>>): LogConfig {
    return brokerConfigFromProperties({ ...config.overrides, ...clusterDefault, ...perBroker }, DEFAULT_BROKER_CONFIG).logConfig;
  }

  logConfig(config: BrokerConfig): LogConfig {
    return DynamicBrokerConfigs.logConfigOf(config, this.clusterDefault, this.perBroker);
  }

  /** Replaces one resource's set and persists both. */
  set(clusterWide: boolean, configs: Readonly<Record<string, string>>): void {
    if (clusterWide) this.clusterDefault = { ...configs };
    else this.perBroker = { ...configs };
    atomicWriteFileSync(join(this.dataDir, BROKER_CONFIGS_FILE), `${JSON.stringify({ version: 1, clusterDefault: this.clusterDefault, perBroker: this.perBroker }, null, 1)}\n`);
  }
}
