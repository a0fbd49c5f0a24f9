/*
 * CRC-32C (Castagnoli) for kafkalite's Node-API addon (module init in addon.c).
 *
 * crc32c(initial, data[, start, end]) -> uint32. `initial` is a finished CRC (0 to start), so
 * crc32c(crc32c(0, a), b) === crc32c(0, a + b), the convention of sse4_crc32 and @node-rs/crc32.
 *
 * x86-64 with SSE4.2 and PCLMULQDQ (checked at load): the crc32 instruction has a latency of 3
 * cycles but issues more than once per cycle, so one dependent chain runs at a fraction of the
 * possible rate. Each block is cut in three equal lanes, each lane is checksummed from 0 by its own
 * chain, and the lanes are joined by linearity of the CRC: crc(A B C) = A*x^(2n) + B*x^n + C
 * (mod P), n the lane length in bits. Multiplying a 32-bit CRC by a constant x^k mod P is one
 * carry-less multiply (the 63-bit product, read as a reflected 64-bit word, is c*k*x) and one crc32
 * of that word (which multiplies by x^32 and reduces), so the constants are x^(n-33) mod P. The
 * running result is joined the same way, so no lane waits for the previous block: with short lanes
 * (128 bytes) out-of-order execution runs the chains of consecutive blocks together (more than
 * three in flight) and the reads stay nearly sequential; 128-byte lanes measured faster than
 * 8 KiB lanes (bench/README.md). 32-byte lanes then take most of the remainder.
 * Elsewhere: table-driven slicing-by-8, portable C.
 */
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <node_api.h>

#define POLY 0x82f63b78u /* x^32 + ... reflected: bit 31 is x^0 */

static uint32_t table[8][256];

static void make_tables(void) {
  for (uint32_t i = 0; i < 256; i++) {
    uint32_t c = i;
    for (int k = 0; k < 8; k++) c = c & 1 ? (c >> 1) ^ POLY : c >> 1;
    table[0][i] = c;
  }
  for (uint32_t i = 0; i < 256; i++)
    for (int k = 1; k < 8; k++) table[k][i] = (table[k - 1][i] >> 8) ^ table[0][table[k - 1][i] & 0xff];
}

/* Register in, register out (no inversions). */
static uint32_t crc_sw(uint32_t c, const uint8_t *p, size_t n) {
  for (; n >= 8; p += 8, n -= 8) {
    c ^= (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24;
    c = table[7][c & 0xff] ^ table[6][(c >> 8) & 0xff] ^ table[5][(c >> 16) & 0xff] ^ table[4][c >> 24] ^
        table[3][p[4]] ^ table[2][p[5]] ^ table[1][p[6]] ^ table[0][p[7]];
  }
  while (n--) c = (c >> 8) ^ table[0][(c ^ *p++) & 0xff];
  return c;
}

#if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__)) && !defined(CRC32C_NO_HW)
#include <immintrin.h>
#define HAVE_HW 1
#ifndef LONG_LANE
#define LONG_LANE 128 /* bytes per lane, multiple of 8 */
#endif
#ifndef SHORT_LANE
#define SHORT_LANE 32
#endif

static int hw;
/* For each lane size: x^(8L-33), x^(16L-33), x^(24L-33) mod P. */
static uint32_t k_long[3], k_short[3];

static uint32_t xpow(unsigned n) { /* x^n mod P, bit by bit: load time only */
  uint32_t r = 0x80000000u;
  while (n--) r = r & 1 ? (r >> 1) ^ POLY : r >> 1;
  return r;
}

__attribute__((target("sse4.2,pclmul"))) static inline uint32_t mulx(uint32_t c, uint32_t k) {
  __m128i p = _mm_clmulepi64_si128(_mm_cvtsi32_si128((int)c), _mm_cvtsi32_si128((int)k), 0);
  return (uint32_t)_mm_crc32_u64(0, (uint64_t)_mm_cvtsi128_si64(p));
}

static inline uint64_t load64(const uint8_t *p) { uint64_t v; memcpy(&v, p, 8); return v; }

/* Whole blocks of three lanes of `lane` bytes; returns the register, advances *pp and *np. */
__attribute__((target("sse4.2,pclmul"))) static inline uint32_t
blocks(uint32_t c, const uint8_t **pp, size_t *np, size_t lane, const uint32_t *k) {
  const uint8_t *p = *pp;
  size_t n = *np;
  for (; n >= 3 * lane; n -= 3 * lane, p += 2 * lane) {
    uint64_t a = 0, b = 0, d = 0;
    for (const uint8_t *end = p + lane; p < end; p += 8) {
      a = _mm_crc32_u64(a, load64(p));
      b = _mm_crc32_u64(b, load64(p + lane));
      d = _mm_crc32_u64(d, load64(p + 2 * lane));
    }
    c = mulx(c, k[2]) ^ mulx((uint32_t)a, k[1]) ^ mulx((uint32_t)b, k[0]) ^ (uint32_t)d;
  }
  *pp = p;
  *np = n;
  return c;
}

__attribute__((target("sse4.2,pclmul"))) static uint32_t crc_hw(uint32_t c, const uint8_t *p, size_t n) {
  c = blocks(c, &p, &n, LONG_LANE, k_long);
  c = blocks(c, &p, &n, SHORT_LANE, k_short);
  uint64_t c64 = c;
  for (; n >= 8; p += 8, n -= 8) c64 = _mm_crc32_u64(c64, load64(p));
  c = (uint32_t)c64;
  while (n--) c = _mm_crc32_u8(c, *p++);
  return c;
}

static void init_hw(void) {
  __builtin_cpu_init();
  hw = __builtin_cpu_supports("sse4.2") && __builtin_cpu_supports("pclmul");
  for (unsigned i = 0; i < 3; i++) {
    k_long[i] = xpow(8u * LONG_LANE * (i + 1) - 33);
    k_short[i] = xpow(8u * SHORT_LANE * (i + 1) - 33);
  }
}
#else
#define HAVE_HW 0
static const int hw = 0;
static void init_hw(void) {}
#endif

static uint32_t crc32c(uint32_t crc, const uint8_t *p, size_t n, int use_hw) {
#if HAVE_HW
  if (use_hw) return ~crc_hw(~crc, p, n);
#endif
  (void)use_hw;
  return ~crc_sw(~crc, p, n);
}

static napi_value fail(napi_env env, const char *msg) {
  napi_throw_type_error(env, NULL, msg);
  return NULL;
}

/* crc32c(initial, data[, start[, end]]); data is any TypedArray (Buffer included) */
static napi_value call(napi_env env, napi_callback_info info, int use_hw) {
  size_t argc = 4;
  napi_value argv[4];
  uint32_t crc;
  napi_typedarray_type type;
  size_t len;
  void *data;
  if (napi_get_cb_info(env, info, &argc, argv, NULL, NULL) != napi_ok || argc < 2) return fail(env, "crc32c(initial, data[, start, end])");
  if (napi_get_value_uint32(env, argv[0], &crc) != napi_ok) return fail(env, "initial CRC must be a number");
  if (napi_get_typedarray_info(env, argv[1], &type, &len, &data, NULL, NULL) != napi_ok) return fail(env, "data must be a Buffer or TypedArray");
  switch (type) {
    case napi_int8_array: case napi_uint8_array: case napi_uint8_clamped_array: break;
    case napi_int16_array: case napi_uint16_array: len *= 2; break;
    case napi_float64_array: case napi_bigint64_array: case napi_biguint64_array: len *= 8; break;
    default: len *= 4;
  }
  double range[2] = {0, (double)len};
  for (size_t i = 2; i < argc && i < 4; i++) {
    if (napi_get_value_double(env, argv[i], &range[i - 2]) != napi_ok) return fail(env, "start and end must be numbers");
  }
  if (!(range[0] >= 0 && range[0] <= range[1] && range[1] <= (double)len) || range[0] != (double)(size_t)range[0] ||
      range[1] != (double)(size_t)range[1]) {
    napi_throw_range_error(env, NULL, "need 0 <= start <= end <= byteLength, integers");
    return NULL;
  }
  napi_value out;
  napi_create_uint32(env, crc32c(crc, (const uint8_t *)data + (size_t)range[0], (size_t)range[1] - (size_t)range[0], use_hw), &out);
  return out;
}

static napi_value js_crc32c(napi_env env, napi_callback_info info) { return call(env, info, hw); }
static napi_value js_crc32c_sw(napi_env env, napi_callback_info info) { return call(env, info, 0); }

/* Adds crc32c, crc32cSoftware and hardware to `exports` (module init: addon.c). */
void crc32c_init(napi_env env, napi_value exports) {
  napi_value fn, flag;
  make_tables();
  init_hw();
  napi_create_function(env, "crc32c", NAPI_AUTO_LENGTH, js_crc32c, NULL, &fn);
  napi_set_named_property(env, exports, "crc32c", fn);
  napi_create_function(env, "crc32cSoftware", NAPI_AUTO_LENGTH, js_crc32c_sw, NULL, &fn);
  napi_set_named_property(env, exports, "crc32cSoftware", fn);
  napi_get_boolean(env, hw != 0, &flag);
  napi_set_named_property(env, exports, "hardware", flag);
}
