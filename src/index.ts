/**
 * kafkalite's public API. Layers, bottom up: record format (`./record`), storage, broker, tools.
 */
export * from './errors.js';
export * from './record/index.js';
