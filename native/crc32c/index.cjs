'use strict';
// crc32c(initial, data[, start, end]) -> uint32; crc32cSoftware (same, table path); hardware: boolean
module.exports = require('./build/Release/crc32c.node');
