/*
 * The active segment's tail, mapped: small appends are copied into a shared mapping of the
 * segment file instead of written with pwrite (src/storage/mapped-tail.ts says when and why).
 *
 *  - allocate(fd, offset, length): fallocate mode 0: the blocks of [offset, offset + length) are
 *    allocated (unwritten extents, read as zeros) and the file grows to cover them. Allocated
 *    blocks matter: a store into a mapped hole needs a block at fault time, and on a full disk
 *    that fault raises SIGBUS, where a failed fallocate is an error code here.
 *  - map(fd, offset, length): a MAP_SHARED read-write mapping of the file's [offset, offset +
 *    length) as an ArrayBuffer. Its pages are the page cache's, as a pwrite's would be: a
 *    killed process loses nothing copied into them, and fdatasync writes them.
 *  - unmap(buffer): detaches the ArrayBuffer (any view of it reads as empty from then on) and
 *    unmaps the memory at once, rather than at the ArrayBuffer's collection, so that the file
 *    can be trimmed and its pages dropped on the caller's schedule.
 * Linux only: elsewhere the three are absent and appends are written with pwrite.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <node_api.h>
#include <stdint.h>
#include <stdlib.h>

#ifdef __linux__
#include <fcntl.h>
#include <sys/mman.h>
#include <unistd.h>

/* One mapping: unmapped by unmap() or, failing that, when its ArrayBuffer is collected. */
typedef struct {
  void *addr;
  size_t length;
  int unmapped;
} mapping_t;

static int read_int_args(napi_env env, napi_callback_info info, size_t n, int64_t *out, const char *usage) {
  size_t argc = 3;
  napi_value argv[3];
  if (n > 3 || napi_get_cb_info(env, info, &argc, argv, NULL, NULL) != napi_ok || argc < n) {
    napi_throw_type_error(env, NULL, usage);
    return 0;
  }
  for (size_t i = 0; i < n; i++) {
    double v;
    if (napi_get_value_double(env, argv[i], &v) != napi_ok || !(v >= 0) || v > 9007199254740991.0) {
      napi_throw_type_error(env, NULL, usage);
      return 0;
    }
    out[i] = (int64_t)v;
  }
  return 1;
}

static napi_value int_result(napi_env env, int value) {
  napi_value result;
  napi_create_int32(env, value, &result);
  return result;
}

/* allocate(fd, offset, length) -> 0 or errno */
static napi_value js_allocate(napi_env env, napi_callback_info info) {
  int64_t a[3];
  if (!read_int_args(env, info, 3, a, "allocate(fd, offset, length)")) return NULL;
  if (a[2] == 0) return int_result(env, 0);
  int r;
  do {
    r = fallocate((int)a[0], 0, (off_t)a[1], (off_t)a[2]);
  } while (r != 0 && errno == EINTR);
  return int_result(env, r == 0 ? 0 : errno);
}

static void finalize_mapping(napi_env env, void *data, void *hint) {
  (void)env;
  (void)data;
  mapping_t *m = hint;
  if (!m->unmapped) munmap(m->addr, m->length);
  free(m);
}

/* map(fd, offset, length) -> ArrayBuffer; throws with the errno's message on failure */
static napi_value js_map(napi_env env, napi_callback_info info) {
  int64_t a[3];
  if (!read_int_args(env, info, 3, a, "map(fd, offset, length)")) return NULL;
  long page = sysconf(_SC_PAGESIZE);
  if (a[2] == 0 || (page > 0 && a[1] % page != 0)) {
    napi_throw_range_error(env, NULL, "map: the offset must be page-aligned and the length positive");
    return NULL;
  }
  mapping_t *m = malloc(sizeof(mapping_t));
  if (m == NULL) {
    napi_throw_error(env, "ENOMEM", "map: out of memory");
    return NULL;
  }
  void *addr = mmap(NULL, (size_t)a[2], PROT_READ | PROT_WRITE, MAP_SHARED, (int)a[0], (off_t)a[1]);
  if (addr == MAP_FAILED) {
    int err = errno;
    free(m);
    napi_value code, message, error;
    napi_create_int32(env, err, &code);
    napi_create_string_utf8(env, "map: mmap failed", NAPI_AUTO_LENGTH, &message);
    napi_create_error(env, NULL, message, &error);
    napi_set_named_property(env, error, "errno", code);
    napi_throw(env, error);
    return NULL;
  }
  m->addr = addr;
  m->length = (size_t)a[2];
  m->unmapped = 0;
  napi_value buffer;
  if (napi_create_external_arraybuffer(env, addr, m->length, finalize_mapping, m, &buffer) != napi_ok) {
    // a runtime that refuses memory from outside its heap (V8's sandbox): the caller writes instead
    munmap(addr, m->length);
    free(m);
    napi_throw_error(env, "ENOTSUP", "map: this runtime does not accept external ArrayBuffers");
    return NULL;
  }
  if (napi_wrap(env, buffer, m, NULL, NULL, NULL) != napi_ok) {
    // the ArrayBuffer owns the mapping from here: its collection unmaps it
    napi_throw_error(env, NULL, "map: cannot tag the mapping");
    return NULL;
  }
  return buffer;
}

/* unmap(buffer) -> 0 or errno (the buffer is detached either way) */
static napi_value js_unmap(napi_env env, napi_callback_info info) {
  size_t argc = 1;
  napi_value argv[1];
  mapping_t *m = NULL;
  if (napi_get_cb_info(env, info, &argc, argv, NULL, NULL) != napi_ok || argc < 1 || napi_remove_wrap(env, argv[0], (void **)&m) != napi_ok || m == NULL) {
    napi_throw_type_error(env, NULL, "unmap(buffer): not a buffer from map()");
    return NULL;
  }
  if (m->unmapped) return int_result(env, 0);
  // nothing runs JavaScript between these steps: no view can touch the memory once it is unmapped,
  // and the detach leaves every view of it empty
  m->unmapped = 1;
  int err = munmap(m->addr, m->length) == 0 ? 0 : errno;
  napi_detach_arraybuffer(env, argv[0]);
  return int_result(env, err);
}

void mapped_init(napi_env env, napi_value exports) {
  napi_property_descriptor props[] = {
      {"allocate", NULL, js_allocate, NULL, NULL, NULL, napi_default, NULL},
      {"map", NULL, js_map, NULL, NULL, NULL, napi_default, NULL},
      {"unmap", NULL, js_unmap, NULL, NULL, NULL, napi_default, NULL},
  };
  napi_define_properties(env, exports, sizeof(props) / sizeof(props[0]), props);
}
#else
void mapped_init(napi_env env, napi_value exports) {
  (void)env;
  (void)exports;
}
#endif
