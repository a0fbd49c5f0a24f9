/**
 * kafkalite's public API. Layers, bottom up: record format (`./record`), storage (`./storage`),
 * broker (`./broker`: `startBroker()`), tools (`kafkalite` CLI).
 */
export * from './errors.js';
export * from './record/index.js';
export * from './storage/index.js';
export * from './broker/index.js';
