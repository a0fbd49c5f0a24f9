/*
 * Structural scan of an uncompressed v2 records section, for the append path's validation.
 *
 * scanRecords(data, start, end, count, summary: Float64Array(3)) -> boolean
 *
 * Walks `count` records in data[start, end) with the checks of Kafka's DefaultRecord.readFrom as
 * src/record/batch.ts applies them (record size within the section, every field within its record,
 * key/value/header sizes within the record, header count and header key sizes not negative, the
 * record read exactly to its declared end, nothing left after the last record) and writes the
 * largest and smallest timestampDelta and the number of null keys to `summary`. It answers true
 * only when every check passed; anything else (a malformed record, a varint form it does not take,
 * a timestampDelta beyond 2^53) is false, and the caller then scans in JavaScript, which accepts
 * what it accepts and reports the precise error. So this scanner may refuse more than the
 * JavaScript one, never less, and what it accepts it summarises exactly as the JavaScript would.
 * Nothing is allocated; every read is bounded by the record's end.
 */
#include <stddef.h>
#include <stdint.h>
#include <node_api.h>

/* Zigzag int32 varint (Kafka ByteUtils.readVarint, as src/bytes/varint.ts: a fifth byte with its
 * high bit set is refused, its other bits past 32 are dropped). */
static int varint(const uint8_t *p, size_t *pos, size_t end, int32_t *out) {
  size_t i = *pos;
  uint32_t v = 0;
  for (int shift = 0;; shift += 7) {
    if (i >= end) return 0;
    uint8_t b = p[i++];
    if (shift == 28) {
      if (b & 0x80) return 0;
      v |= (uint32_t)b << 28;
      break;
    }
    v |= (uint32_t)(b & 0x7f) << shift;
    if (!(b & 0x80)) break;
  }
  *pos = i;
  *out = (int32_t)((v >> 1) ^ (0u - (v & 1u)));
  return 1;
}

/* Zigzag varlong, taken only when it ends within 9 bytes (63 bits) and |value| < 2^53. */
static int varlong53(const uint8_t *p, size_t *pos, size_t end, double *out) {
  size_t i = *pos;
  uint64_t v = 0;
  for (int shift = 0;; shift += 7) {
    if (i >= end || shift > 56) return 0;
    uint8_t b = p[i++];
    v |= (uint64_t)(b & 0x7f) << shift;
    if (!(b & 0x80)) break;
  }
  int64_t x = (int64_t)((v >> 1) ^ (0ull - (v & 1ull)));
  const int64_t safe = ((int64_t)1 << 53) - 1;
  if (x > safe || x < -safe) return 0;
  *pos = i;
  *out = (double)x;
  return 1;
}

/* A length-prefixed field: a negative length is null (when allowed), else it must fit. */
static int field(const uint8_t *p, size_t *pos, size_t end, int null_ok, int *is_null) {
  int32_t n;
  if (!varint(p, pos, end, &n)) return 0;
  if (n < 0) {
    if (!null_ok) return 0;
    if (is_null) *is_null = 1;
    return 1;
  }
  if ((size_t)n > end - *pos) return 0;
  *pos += (size_t)n;
  return 1;
}

static int scan(const uint8_t *p, size_t pos, size_t end, int64_t count, double *max_delta, double *min_delta, double *null_keys) {
  double hi = 0, lo = 0, nulls = 0;
  for (int64_t r = 0; r < count; r++) {
    if (pos >= end) return 0;
    int32_t body;
    if (!varint(p, &pos, end, &body) || body < 0 || (size_t)body > end - pos) return 0;
    size_t record_end = pos + (size_t)body;
    if (pos >= record_end) return 0; /* attributes */
    pos++;
    double delta;
    int32_t offset_delta, headers;
    if (!varlong53(p, &pos, record_end, &delta) || !varint(p, &pos, record_end, &offset_delta)) return 0;
    int key_null = 0;
    if (!field(p, &pos, record_end, 1, &key_null) || !field(p, &pos, record_end, 1, NULL)) return 0;
    if (!varint(p, &pos, record_end, &headers) || headers < 0 || (size_t)headers > record_end - pos) return 0;
    for (int32_t h = 0; h < headers; h++) {
      if (!field(p, &pos, record_end, 0, NULL) || !field(p, &pos, record_end, 1, NULL)) return 0;
    }
    if (pos != record_end) return 0;
    if (r == 0 || delta > hi) hi = delta;
    if (r == 0 || delta < lo) lo = delta;
    nulls += key_null;
  }
  if (pos != end) return 0;
  *max_delta = hi;
  *min_delta = lo;
  *null_keys = nulls;
  return 1;
}

static napi_value js_scan_records(napi_env env, napi_callback_info info) {
  size_t argc = 5;
  napi_value argv[5];
  napi_value result;
  if (napi_get_cb_info(env, info, &argc, argv, NULL, NULL) != napi_ok || argc < 5) {
    napi_throw_type_error(env, NULL, "scanRecords(data, start, end, count, summary)");
    return NULL;
  }
  napi_typedarray_type type;
  size_t len, summary_len;
  void *data, *summary;
  double start, end, count;
  if (napi_get_typedarray_info(env, argv[0], &type, &len, &data, NULL, NULL) != napi_ok ||
      (type != napi_uint8_array && type != napi_int8_array && type != napi_uint8_clamped_array)) {
    napi_throw_type_error(env, NULL, "data must be a Buffer or Uint8Array");
    return NULL;
  }
  if (napi_get_typedarray_info(env, argv[4], &type, &summary_len, &summary, NULL, NULL) != napi_ok || type != napi_float64_array ||
      summary_len < 3) {
    napi_throw_type_error(env, NULL, "summary must be a Float64Array of 3");
    return NULL;
  }
  if (napi_get_value_double(env, argv[1], &start) != napi_ok || napi_get_value_double(env, argv[2], &end) != napi_ok ||
      napi_get_value_double(env, argv[3], &count) != napi_ok) {
    napi_throw_type_error(env, NULL, "start, end and count must be numbers");
    return NULL;
  }
  int ok = start >= 0 && start <= end && end <= (double)len && start == (double)(size_t)start && end == (double)(size_t)end &&
           count >= 1 && count <= 2147483647.0 && count == (double)(int64_t)count;
  double *s = (double *)summary;
  ok = ok && scan((const uint8_t *)data, (size_t)start, (size_t)end, (int64_t)count, &s[0], &s[1], &s[2]);
  napi_get_boolean(env, ok, &result);
  return result;
}

/* Adds scanRecords to `exports` (module init: addon.c). */
void records_init(napi_env env, napi_value exports) {
  napi_value fn;
  napi_create_function(env, "scanRecords", NAPI_AUTO_LENGTH, js_scan_records, NULL, &fn);
  napi_set_named_property(env, exports, "scanRecords", fn);
}
