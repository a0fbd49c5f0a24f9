'use strict';
// crc32c(initial, data[, start, end]) -> uint32; crc32cSoftware (same, table path); hardware: boolean
// scanRecords(data, start, end, count, summary: Float64Array(3)) -> boolean (src/records.c)
// startWriteback(fd, offset, length), dropPages(fd, offset, length) -> 0 or errno (src/pagecache.c)
// pageHintsAsync(fd, writebackOffset, writebackLength, dropOffset, dropLength) -> 0 or errno (the same, on the thread pool)
// tryLockFile(fd) -> 0 or errno; lockHolder(fd) -> 0 free, pid, -1 unknown holder, -errno (src/dirlock.c)
// allocate(fd, offset, length) -> 0 or errno; map(fd, offset, length) -> mapping; copy(mapping, offset, bytes) -> 0 or errno
//   (EFAULT: a refused page fault, caught); unmap(mapping) -> 0 or errno (src/mapped.c, Linux)
module.exports = require('./build/Release/kafkalite_native.node');
