/*
 * The active segment's tail, mapped: small appends are copied into a shared mapping of the
 * segment file instead of written with pwrite (src/storage/mapped-tail.ts says when and why).
 *
 *  - allocate(fd, offset, length): fallocate mode 0: the blocks of [offset, offset + length) are
 *    allocated (unwritten extents, read as zeros) and the file grows to cover them. Allocated
 *    blocks matter: a store into a mapped hole needs a block at fault time, and on a full disk
 *    that fault is refused, where a failed fallocate is an error code here.
 *  - map(fd, offset, length): a MAP_SHARED read-write mapping of the file's [offset, offset +
 *    length), as an opaque handle. Its pages are the page cache's, as a pwrite's would be: a
 *    killed process loses nothing copied into them, and fdatasync writes them.
 *  - copy(mapping, offset, bytes): memcpy of bytes to the mapping's offset, guarded: when the
 *    kernel refuses a page fault in the copy (the file made immutable, its file system remounted
 *    read-only after an error, a block it cannot back), the store raises SIGBUS. Unguarded that
 *    kills the process; here the copy returns EFAULT and the caller writes the bytes with pwrite,
 *    which returns the real error to the log-dir failure path. The JVM guards its copies into
 *    MappedByteBuffers the same way (a fault in an unsafe access becomes an InternalError).
 *  - unmap(mapping): unmaps at once, rather than when the handle is collected, so that the file
 *    can be trimmed on the caller's schedule; later copies through the handle return EBADF.
 * Linux only: elsewhere these are absent and appends are written with pwrite.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <node_api.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>

#ifdef __linux__
#include <fcntl.h>
#include <pthread.h>
#include <setjmp.h>
#include <signal.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "args.h"

/*
 * The type tag of map()'s handles: a Node-API external carries only a pointer, and another
 * addon's external passed in its place must not be taken for a mapping (and written through).
 */
static const napi_type_tag MAPPING_TAG = {0x6b61666b616c6974ULL, 0x6d61707065640001ULL};

/* One mapping: unmapped by unmap() or, failing that, when its handle is collected. */
typedef struct {
  char *addr;
  size_t length;
  int unmapped;
} mapping_t;

/*
 * The guard of the copy running on this thread, if any: the SIGBUS handler jumps back to it when
 * the fault's address lies in the range being written. Thread-local, since a fault is delivered to
 * the thread that faulted, and a Worker may run a broker of its own.
 */
static __thread sigjmp_buf *volatile guard_jump;
static __thread char *volatile guard_from;
static __thread char *volatile guard_to;

static struct sigaction previous_sigbus;
static pthread_once_t handler_once = PTHREAD_ONCE_INIT;
static int handler_errno;

static void on_sigbus(int sig, siginfo_t *info, void *context) {
  sigjmp_buf *jump = guard_jump;
  char *at = (char *)info->si_addr;
  // si_code > 0: raised by the kernel for a fault (BUS_ADRERR, ...), not sent by kill or tgkill,
  // whose si_addr is no address
  if (jump != NULL && info->si_code > 0 && at >= guard_from && at < guard_to) {
    guard_jump = NULL;
    siglongjmp(*jump, 1);
  }
  // not a fault of a guarded copy: what would have happened without this handler happens
  if (previous_sigbus.sa_flags & SA_SIGINFO) {
    previous_sigbus.sa_sigaction(sig, info, context);
  } else if (previous_sigbus.sa_handler != SIG_DFL && previous_sigbus.sa_handler != SIG_IGN) {
    previous_sigbus.sa_handler(sig);
  } else {
    // the default action: terminate with a core. Raised while blocked in this handler, it is
    // delivered as soon as the handler returns (a fault would also recur at the same instruction)
    signal(SIGBUS, SIG_DFL);
    raise(SIGBUS);
  }
}

static void install_handler(void) {
  struct sigaction action;
  memset(&action, 0, sizeof(action));
  action.sa_sigaction = on_sigbus;
  action.sa_flags = SA_SIGINFO | SA_ONSTACK;
  sigemptyset(&action.sa_mask);
  if (sigaction(SIGBUS, &action, &previous_sigbus) != 0) handler_errno = errno;
}

/* memcpy into a mapping; EFAULT when a page fault in it was refused (SIGBUS) */
static int guarded_copy(char *to, const char *from, size_t length) {
  sigjmp_buf jump;
  // savemask 0: saving the mask is a system call per copy. The handler ran with SIGBUS blocked, so
  // the jump back unblocks it by hand (only on that rare path)
  if (sigsetjmp(jump, 0) != 0) {
    sigset_t bus;
    sigemptyset(&bus);
    sigaddset(&bus, SIGBUS);
    pthread_sigmask(SIG_UNBLOCK, &bus, NULL);
    return EFAULT;
  }
  guard_from = to;
  guard_to = to + length;
  guard_jump = &jump;
  // and the copy's stores start after the guard is in place
  __atomic_signal_fence(__ATOMIC_SEQ_CST);
  memcpy(to, from, length);
  // the copy's stores stay before the guard is lifted
  __atomic_signal_fence(__ATOMIC_SEQ_CST);
  guard_jump = NULL;
  return 0;
}

/* allocate(fd, offset, length) -> 0 or errno */
static napi_value js_allocate(napi_env env, napi_callback_info info) {
  static const char usage[] = "allocate(fd, offset, length)";
  int fd;
  int64_t a[3];
  if (!args_read_fd_ints(env, info, 3, &fd, a, usage)) return NULL;
  if (a[2] == 0) return int_result(env, 0);
  int r;
  do {
    r = fallocate(fd, 0, (off_t)a[1], (off_t)a[2]);
  } while (r != 0 && errno == EINTR);
  return int_result(env, r == 0 ? 0 : errno);
}

static void finalize_mapping(napi_env env, void *data, void *hint) {
  (void)env;
  (void)hint;
  mapping_t *m = data;
  if (!m->unmapped) munmap(m->addr, m->length);
  free(m);
}

static void throw_errno(napi_env env, const char *what, int err) {
  napi_value code, message, error;
  napi_create_int32(env, err, &code);
  napi_create_string_utf8(env, what, NAPI_AUTO_LENGTH, &message);
  napi_create_error(env, NULL, message, &error);
  napi_set_named_property(env, error, "errno", code);
  napi_throw(env, error);
}

/* map(fd, offset, length) -> an opaque mapping; throws with the errno on failure */
static napi_value js_map(napi_env env, napi_callback_info info) {
  static const char usage[] = "map(fd, offset, length)";
  int fd;
  int64_t a[3];
  if (!args_read_fd_ints(env, info, 3, &fd, a, usage)) return NULL;
  long page = sysconf(_SC_PAGESIZE);
  if (a[2] == 0 || (page > 0 && a[1] % page != 0)) {
    napi_throw_range_error(env, NULL, "map: the offset must be page-aligned and the length positive");
    return NULL;
  }
  // the guard must be in place before any store through a mapping can fault
  pthread_once(&handler_once, install_handler);
  if (handler_errno != 0) {
    throw_errno(env, "map: cannot install the SIGBUS guard", handler_errno);
    return NULL;
  }
  mapping_t *m = malloc(sizeof(mapping_t));
  if (m == NULL) {
    throw_errno(env, "map: out of memory", ENOMEM);
    return NULL;
  }
  void *addr = mmap(NULL, (size_t)a[2], PROT_READ | PROT_WRITE, MAP_SHARED, fd, (off_t)a[1]);
  if (addr == MAP_FAILED) {
    int err = errno;
    free(m);
    throw_errno(env, "map: mmap failed", err);
    return NULL;
  }
  m->addr = addr;
  m->length = (size_t)a[2];
  m->unmapped = 0;
  napi_value handle;
  if (napi_create_external(env, m, finalize_mapping, NULL, &handle) != napi_ok) {
    munmap(addr, m->length);
    free(m);
    throw_errno(env, "map: cannot create the handle", ENOMEM);
    return NULL;
  }
  // the handle owns the mapping from here (its collection unmaps it); a handle that cannot be
  // tagged is never returned, so copy() and unmap() take only tagged ones
  if (napi_type_tag_object(env, handle, &MAPPING_TAG) != napi_ok) {
    throw_errno(env, "map: cannot tag the handle", ENOMEM);
    return NULL;
  }
  return handle;
}

/* The mapping behind a handle from map(); NULL for anything else, another addon's external included. */
static mapping_t *mapping_arg(napi_env env, napi_value value) {
  void *data = NULL;
  napi_valuetype type;
  bool tagged = false;
  if (napi_typeof(env, value, &type) != napi_ok || type != napi_external) return NULL;
  if (napi_check_object_type_tag(env, value, &MAPPING_TAG, &tagged) != napi_ok || !tagged) return NULL;
  if (napi_get_value_external(env, value, &data) != napi_ok) return NULL;
  return data;
}

/* copy(mapping, offset, bytes: Uint8Array) -> 0, EFAULT (a refused page fault), EBADF (unmapped) or ERANGE */
static napi_value js_copy(napi_env env, napi_callback_info info) {
  static const char usage[] = "copy(mapping, offset, bytes)";
  napi_value argv[3];
  if (!args_get(env, info, 3, argv, usage)) return NULL;
  mapping_t *m = mapping_arg(env, argv[0]);
  int64_t offset;
  if (m == NULL || !args_nonneg_ints(env, argv + 1, 1, &offset, usage)) {
    if (m == NULL) napi_throw_type_error(env, NULL, usage);
    return NULL;
  }
  napi_typedarray_type type;
  size_t length;
  void *data;
  napi_value arraybuffer;
  size_t byte_offset;
  if (napi_get_typedarray_info(env, argv[2], &type, &length, &data, &arraybuffer, &byte_offset) != napi_ok || type != napi_uint8_array) {
    napi_throw_type_error(env, NULL, usage);
    return NULL;
  }
  if (m->unmapped) return int_result(env, EBADF);
  if ((uint64_t)offset > m->length || length > m->length - (size_t)offset) return int_result(env, ERANGE);
  if (length == 0) return int_result(env, 0);
  return int_result(env, guarded_copy(m->addr + offset, data, length));
}

/* unmap(mapping) -> 0 or errno */
static napi_value js_unmap(napi_env env, napi_callback_info info) {
  napi_value argv[1];
  if (!args_get(env, info, 1, argv, "unmap(mapping)")) return NULL;
  mapping_t *m = mapping_arg(env, argv[0]);
  if (m == NULL) {
    napi_throw_type_error(env, NULL, "unmap(mapping): not a mapping from map()");
    return NULL;
  }
  if (m->unmapped) return int_result(env, 0);
  m->unmapped = 1;
  return int_result(env, munmap(m->addr, m->length) == 0 ? 0 : errno);
}

void mapped_init(napi_env env, napi_value exports) {
  napi_property_descriptor props[] = {
      {"allocate", NULL, js_allocate, NULL, NULL, NULL, napi_default, NULL},
      {"map", NULL, js_map, NULL, NULL, NULL, napi_default, NULL},
      {"copy", NULL, js_copy, NULL, NULL, NULL, napi_default, NULL},
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
