/* Argument checks and results shared by the addon's system-call wrappers (args.h). */
#include "args.h"

#include <limits.h>

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
    // a safe integer: a file offset or length beyond 2^53 cannot come from JavaScript exactly, and
    // a fraction would be cut to another offset than the caller meant
    if (napi_get_value_double(env, values[i], &v) != napi_ok || !(v >= 0) || v > 9007199254740991.0 || v != (double)(int64_t)v) {
      napi_throw_type_error(env, NULL, usage);
      return 0;
    }
    out[i] = (int64_t)v;
  }
  return 1;
}

int args_fd(napi_env env, napi_value value, int *fd, const char *usage) {
  int64_t v;
  if (!args_nonneg_ints(env, &value, 1, &v, usage)) return 0;
  // a larger number cast to int would name another descriptor than the caller's
  if (v > INT_MAX) {
    napi_throw_type_error(env, NULL, usage);
    return 0;
  }
  *fd = (int)v;
  return 1;
}

int args_read_fd_ints(napi_env env, napi_callback_info info, size_t n, int *fd, int64_t *out, const char *usage) {
  napi_value argv[5];
  return n >= 1 && args_get(env, info, n, argv, usage) && args_fd(env, argv[0], fd, usage) && args_nonneg_ints(env, argv + 1, n - 1, out + 1, usage);
}

napi_value int_result(napi_env env, int value) {
  napi_value result;
  napi_create_int32(env, value, &result);
  return result;
}
