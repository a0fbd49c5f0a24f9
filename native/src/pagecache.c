/*
 * Page-cache hints for the log's written bytes: start their writeback (sync_file_range with
 * SYNC_FILE_RANGE_WRITE only: it queues the dirty pages for I/O and returns, it neither waits for
 * the disk nor makes anything durable) and, once written back, hand their pages back to the kernel
 * (posix_fadvise POSIX_FADV_DONTNEED drops clean pages; dirty or still-in-flight ones stay).
 * Why: a page the kernel just freed is reused by the next page-cache allocation, while the log's
 * growth otherwise takes never-used pages, which on a VM cost a host fault each (far more than
 * reused pages; figures in bench/README.md). src/storage/page-cache-budget.ts
 * decides what to drop; correctness never depends on these calls, which only give hints.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <node_api.h>
#include <stdlib.h>
#include <unistd.h>

#include "args.h"

/* Queues `data` on libuv's thread pool; 0, or EAGAIN with nothing queued (the caller frees `data`). */
static int queue_on_pool(napi_env env, const char *name, napi_async_execute_callback execute, napi_async_complete_callback complete, void *data,
                         napi_async_work *work) {
  napi_value resource_name;
  *work = NULL;
  if (napi_create_string_utf8(env, name, NAPI_AUTO_LENGTH, &resource_name) != napi_ok ||
      napi_create_async_work(env, NULL, resource_name, execute, complete, data, work) != napi_ok) {
    return EAGAIN;
  }
  if (napi_queue_async_work(env, *work) != napi_ok) {
    napi_delete_async_work(env, *work);
    return EAGAIN;
  }
  return 0;
}

/* startWriteback(fd, offset, length) -> 0 or errno */
static napi_value js_start_writeback(napi_env env, napi_callback_info info) {
  int fd;
  int64_t a[3];
  if (!args_read_fd_ints(env, info, 3, &fd, a, "startWriteback(fd, offset, length)")) return NULL;
#ifdef __linux__
  int rc = sync_file_range(fd, a[1], a[2], SYNC_FILE_RANGE_WRITE);
  return int_result(env, rc == 0 ? 0 : errno);
#else
  return int_result(env, ENOSYS);
#endif
}

/* dropPages(fd, offset, length) -> 0 or errno (posix_fadvise returns the error itself) */
static napi_value js_drop_pages(napi_env env, napi_callback_info info) {
  int fd;
  int64_t a[3];
  if (!args_read_fd_ints(env, info, 3, &fd, a, "dropPages(fd, offset, length)")) return NULL;
  return int_result(env, posix_fadvise(fd, a[1], a[2], POSIX_FADV_DONTNEED));
}

/*
 * The same two calls off the event loop: both can block for a while (sync_file_range when the
 * device queue is full, posix_fadvise DONTNEED while it drains the other CPUs' page lists), and
 * the broker's one thread should not wait for a hint. The descriptor is duplicated before this
 * returns, so the work never touches a number the caller has closed and reused meanwhile.
 */
typedef struct {
  napi_async_work work;
  int fd;
  int64_t writeback_offset, writeback_length, drop_offset, drop_length;
} hint_work;

static void hint_execute(napi_env env, void *data) {
  (void)env;
  hint_work *w = data;
#ifdef __linux__
  if (w->writeback_length > 0) sync_file_range(w->fd, w->writeback_offset, w->writeback_length, SYNC_FILE_RANGE_WRITE);
#endif
  if (w->drop_length > 0) posix_fadvise(w->fd, w->drop_offset, w->drop_length, POSIX_FADV_DONTNEED);
  close(w->fd);
}

static void hint_complete(napi_env env, napi_status status, void *data) {
  (void)status;
  hint_work *w = data;
  napi_delete_async_work(env, w->work);
  free(w);
}

/* pageHintsAsync(fd, writebackOffset, writebackLength, dropOffset, dropLength) -> 0 or errno (of dup) */
static napi_value js_page_hints_async(napi_env env, napi_callback_info info) {
  int given;
  int64_t a[5];
  if (!args_read_fd_ints(env, info, 5, &given, a, "pageHintsAsync(fd, writebackOffset, writebackLength, dropOffset, dropLength)")) return NULL;
  int fd = dup(given);
  if (fd < 0) return int_result(env, errno);
  hint_work *w = malloc(sizeof *w);
  if (w == NULL) {
    close(fd);
    return int_result(env, ENOMEM);
  }
  w->fd = fd;
  w->writeback_offset = a[1];
  w->writeback_length = a[2];
  w->drop_offset = a[3];
  w->drop_length = a[4];
  int err = queue_on_pool(env, "kafkalite:pageHints", hint_execute, hint_complete, w, &w->work);
  if (err != 0) {
    close(fd);
    free(w);
  }
  return int_result(env, err);
}

/*
 * fdatasyncAsync(fd, done): fdatasync on the thread pool, on a duplicate of fd made before this
 * returns; done(errno) runs on the event loop once the data is on disk (errno 0) or the call
 * failed. Kafka flushes a rolled segment in the background (UnifiedLog.roll's "flush-log" task);
 * inline, that fdatasync stalled the broker's one thread at every roll (bench/README.md).
 */
typedef struct {
  napi_async_work work;
  napi_ref done;
  int fd;
  int err;
} sync_work;

static void sync_execute(napi_env env, void *data) {
  (void)env;
  sync_work *w = data;
  w->err = fdatasync(w->fd) == 0 ? 0 : errno;
  close(w->fd);
}

static void sync_complete(napi_env env, napi_status status, void *data) {
  sync_work *w = data;
  napi_value done, global, arg, ignored;
  if (napi_get_reference_value(env, w->done, &done) == napi_ok && done != NULL) {
    napi_get_global(env, &global);
    napi_create_int32(env, status == napi_ok ? w->err : ECANCELED, &arg);
    /* an exception thrown by done surfaces as Node's uncaught exception, as for any callback */
    napi_make_callback(env, NULL, global, done, 1, &arg, &ignored);
  }
  napi_delete_reference(env, w->done);
  napi_delete_async_work(env, w->work);
  free(w);
}

static napi_value js_fdatasync_async(napi_env env, napi_callback_info info) {
  static const char *usage = "fdatasyncAsync(fd, done)";
  napi_value argv[2];
  napi_valuetype type;
  int given;
  if (!args_get(env, info, 2, argv, usage) || !args_fd(env, argv[0], &given, usage)) return NULL;
  if (napi_typeof(env, argv[1], &type) != napi_ok || type != napi_function) {
    napi_throw_type_error(env, NULL, usage);
    return NULL;
  }
  int fd = dup(given);
  if (fd < 0) return int_result(env, errno);
  sync_work *w = calloc(1, sizeof *w);
  if (w == NULL) {
    close(fd);
    return int_result(env, ENOMEM);
  }
  w->fd = fd;
  int err = napi_create_reference(env, argv[1], 1, &w->done) == napi_ok ? queue_on_pool(env, "kafkalite:fdatasync", sync_execute, sync_complete, w, &w->work) : EAGAIN;
  if (err != 0) {
    if (w->done != NULL) napi_delete_reference(env, w->done);
    close(fd);
    free(w);
  }
  return int_result(env, err);
}

void pagecache_init(napi_env env, napi_value exports) {
  napi_value fn;
  napi_create_function(env, "startWriteback", NAPI_AUTO_LENGTH, js_start_writeback, NULL, &fn);
  napi_set_named_property(env, exports, "startWriteback", fn);
  napi_create_function(env, "dropPages", NAPI_AUTO_LENGTH, js_drop_pages, NULL, &fn);
  napi_set_named_property(env, exports, "dropPages", fn);
  napi_create_function(env, "pageHintsAsync", NAPI_AUTO_LENGTH, js_page_hints_async, NULL, &fn);
  napi_set_named_property(env, exports, "pageHintsAsync", fn);
  napi_create_function(env, "fdatasyncAsync", NAPI_AUTO_LENGTH, js_fdatasync_async, NULL, &fn);
  napi_set_named_property(env, exports, "fdatasyncAsync", fn);
}
