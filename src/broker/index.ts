/** The broker layer's public API: an in-process single-node Kafka broker. */
export { Broker, startBroker, type BrokerOptions } from './broker.js';
export { brokerConfigFromProperties, DEFAULT_BROKER_CONFIG, type BrokerConfig } from './config.js';
export { createLogger, type Logger, type LogLevel } from './logger.js';
