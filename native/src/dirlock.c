/*
 * The data directory lock (Kafka's LogManager.lockLogDirs: FileChannel.tryLock on `.lock`).
 * An exclusive advisory lock on the whole file, taken without waiting:
 *  - the kernel drops it when the holder dies, so a SIGKILLed broker leaves nothing stale;
 *  - a copied `.lock` carries no lock, so a backup or fixture copy opens freely;
 *  - it is the kernel's, so it holds across PID namespaces (two containers on one volume).
 * Linux open-file-description locks (F_OFD_SETLK) are used where they exist: they conflict with the
 * POSIX record lock a JVM's FileChannel.tryLock takes (so kafkalite and Apache Kafka exclude each
 * other too), they also conflict between two opens in one process (a POSIX lock would not), and
 * closing some other descriptor of the file does not drop them. Elsewhere, flock(2).
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <node_api.h>
#include <string.h>
#include <sys/file.h>
#include <unistd.h>

#include "args.h"

/* The one argument, a descriptor. */
static int read_fd(napi_env env, napi_callback_info info, int *fd, const char *usage) {
  int64_t unused[1];
  return args_read_fd_ints(env, info, 1, fd, unused, usage);
}

/* tryLockFile(fd) -> 0 when this descriptor now holds the exclusive lock, else an errno (EAGAIN/EACCES: held). */
static napi_value js_try_lock_file(napi_env env, napi_callback_info info) {
  int fd;
  if (!read_fd(env, info, &fd, "tryLockFile(fd)")) return NULL;
#ifdef F_OFD_SETLK
  struct flock fl;
  memset(&fl, 0, sizeof fl);
  fl.l_type = F_WRLCK;
  fl.l_whence = SEEK_SET; /* l_start = l_len = 0: the whole file, as FileChannel.tryLock() */
  return int_result(env, fcntl(fd, F_OFD_SETLK, &fl) == 0 ? 0 : errno);
#else
  return int_result(env, flock(fd, LOCK_EX | LOCK_NB) == 0 ? 0 : errno);
#endif
}

/*
 * lockHolder(fd) -> 0 when no one holds a lock that would refuse ours; the holder's pid when the
 * kernel can tell (a POSIX lock, e.g. a Kafka JVM, in this PID namespace); -1 when it is held by an
 * unknown holder (another kafkalite's open-file-description lock, or a holder in another PID
 * namespace); or -errno. Needs only a read-only descriptor, so read-only tools can ask.
 */
static napi_value js_lock_holder(napi_env env, napi_callback_info info) {
  int fd;
  if (!read_fd(env, info, &fd, "lockHolder(fd)")) return NULL;
#ifdef F_OFD_GETLK
  struct flock fl;
  memset(&fl, 0, sizeof fl);
  fl.l_type = F_WRLCK;
  fl.l_whence = SEEK_SET;
  if (fcntl(fd, F_OFD_GETLK, &fl) != 0) return int_result(env, -errno);
  if (fl.l_type == F_UNLCK) return int_result(env, 0);
  return int_result(env, fl.l_pid > 0 ? (int)fl.l_pid : -1);
#else
  /* flock has no query: try a shared lock on this descriptor and give it back. */
  if (flock(fd, LOCK_SH | LOCK_NB) == 0) {
    flock(fd, LOCK_UN);
    return int_result(env, 0);
  }
  return int_result(env, errno == EWOULDBLOCK ? -1 : -errno);
#endif
}

void dirlock_init(napi_env env, napi_value exports) {
  napi_value fn;
  napi_create_function(env, "tryLockFile", NAPI_AUTO_LENGTH, js_try_lock_file, NULL, &fn);
  napi_set_named_property(env, exports, "tryLockFile", fn);
  napi_create_function(env, "lockHolder", NAPI_AUTO_LENGTH, js_lock_holder, NULL, &fn);
  napi_set_named_property(env, exports, "lockHolder", fn);
}
