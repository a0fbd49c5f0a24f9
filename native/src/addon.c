/*
 * kafkalite's Node-API addon: the hot loops that pay for a native call (see each file).
 *  - crc32c.c: CRC-32C, three crc32 lanes joined with PCLMULQDQ (faster than the single-chain
 *    libraries; figures in bench/README.md).
 *  - records.c: the structural scan of a v2 records section for the append path.
 *  - pagecache.c: writeback and page-drop hints for the log's written bytes.
 *  - dirlock.c: the data directory's exclusive `.lock` (Kafka's FileChannel.tryLock).
 *  - mapped.c: the active segment's tail mapped for small appends (Linux).
 * Optional: built at install (package.json allowScripts); without it kafkalite uses the
 * JavaScript or library equivalents, with identical results.
 */
#include <node_api.h>

void crc32c_init(napi_env env, napi_value exports);
void records_init(napi_env env, napi_value exports);
void pagecache_init(napi_env env, napi_value exports);
void dirlock_init(napi_env env, napi_value exports);
void mapped_init(napi_env env, napi_value exports);

NAPI_MODULE_INIT() {
  crc32c_init(env, exports);
  records_init(env, exports);
  pagecache_init(env, exports);
  dirlock_init(env, exports);
  mapped_init(env, exports);
  return exports;
}
