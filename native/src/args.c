/* Argument checks and results shared by the addon's system-call wrappers (args.h). */
#include "args.h"

int args_get(napi_env env, napi_callback_info info, size_t n, napi_value *argv, const char *usage) {
  size_t argc = n;
  if (n > 5 || napi_get_cb_info(env, info, &argc, argv, NULL, NULL) != napi_ok || argc < n) {
    napi_throw_type_error(env, NULL, usage);
    return 0;
  }
  return 1;
}

int args_nonneg_ints(napi_env env, const napi_value *values, size_t n, int64_t *out, const char *usage) {
  for (size_t i = 0; i < n; i++) {
    double v;
    // a safe integer: a file offset or length beyond 2^53 cannot come from JavaScript exactly
    if (napi_get_value_double(env, values[i], &v) != napi_ok || !(v >= 0) || v > 9007199254740991.0) {
      napi_throw_type_error(env, NULL, usage);
      return 0;
    }
    out[i] = (int64_t)v;
  }
  return 1;
}

int args_read_ints(napi_env env, napi_callback_info info, size_t n, int64_t *out, const char *usage) {
  napi_value argv[5];
  return args_get(env, info, n, argv, usage) && args_nonneg_ints(env, argv, n, out, usage);
}

napi_value int_result(napi_env env, int value) {
  napi_value result;
  napi_create_int32(env, value, &result);
  return result;
}
