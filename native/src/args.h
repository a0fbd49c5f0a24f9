/* Argument checks and results shared by the addon's system-call wrappers (pagecache.c, mapped.c, dirlock.c). */
#ifndef KAFKALITE_ARGS_H
#define KAFKALITE_ARGS_H
#include <node_api.h>
#include <stdint.h>

/* The first n (at most 5) arguments; 0 after throwing a TypeError with `usage` when fewer came. */
int args_get(napi_env env, napi_callback_info info, size_t n, napi_value *argv, const char *usage);
/* values[0..n) as non-negative safe integers (no fraction) into out; 0 after throwing a TypeError with `usage`. */
int args_nonneg_ints(napi_env env, const napi_value *values, size_t n, int64_t *out, const char *usage);
/* value as a descriptor: an integer in 0..INT_MAX; 0 after throwing a TypeError with `usage`. */
int args_fd(napi_env env, napi_value value, int *fd, const char *usage);
/* The first n (1 to 5) arguments: a descriptor into fd, then non-negative safe integers into out[1..n). */
int args_read_fd_ints(napi_env env, napi_callback_info info, size_t n, int *fd, int64_t *out, const char *usage);
/* An int32 result: 0 or an errno, mostly. */
napi_value int_result(napi_env env, int value);

#endif
