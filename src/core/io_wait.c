/* Opening, writing and reading that wait in poll() slices a stop can end (io_wait.h). */
#include "core/io_wait.h"
#include "core/number.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <poll.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

/* How long one wait lasts before the stop flag is read again; and how long, after a stop,
 * an open descriptor still waits for its other end to take or give something (a live
 * reader keeps going, one that never reads is given up on). */
#define SLICE_MS 50
#define GRACE_MS 500

static const volatile sig_atomic_t *g_stop;

void ms_io_set_stop_flag(const volatile sig_atomic_t *flag) { g_stop = flag; }

int ms_io_stop_requested(void) { return g_stop && *g_stop; }

/* Waits until `fd` is ready for `events` (or in error, which the next call reports).
 * Once a stop is requested it waits GRACE_MS more at most, then it is ECANCELED. */
static int wait_ready(int fd, short events)
{
  for (int after_stop_ms = 0;;) {
    int stop = ms_io_stop_requested();
    if (stop && after_stop_ms >= GRACE_MS) {
      errno = ECANCELED;
      return -1;
    }
    struct pollfd p = {fd, events, 0};
    int r = poll(&p, 1, SLICE_MS);
    if (r > 0)
      return 0;
    if (r < 0 && errno != EINTR)
      return -1;
    after_stop_ms += stop ? SLICE_MS : 0;
  }
}

static int is_fifo(const char *path)
{
  struct stat st;
  return stat(path, &st) == 0 && S_ISFIFO(st.st_mode);
}

int ms_io_open(const char *path, int flags, mode_t mode)
{
  for (;;) {
    int fd = open(path, flags | O_NONBLOCK | O_NOCTTY, mode);
    if (fd >= 0)
      return fd;
    if (errno == EINTR)
      continue;
    /* ENXIO on a FIFO opened for writing: no reader yet. Anything else is final. */
    int err = errno;
    if (err != ENXIO || (flags & O_ACCMODE) == O_RDONLY || !is_fifo(path)) {
      errno = err;
      return -1;
    }
    if (ms_io_stop_requested()) {
      errno = ECANCELED;
      return -1;
    }
    poll(NULL, 0, SLICE_MS);
  }
}

/* write(2) without SIGPIPE: a reader that went away is EPIPE for this output alone.
 * The signal is blocked in this thread only (another thread may be writing too) and a
 * pending one taken back before the mask is restored. */
static ssize_t write_quietly(int fd, const void *p, size_t n)
{
  sigset_t pipe_only, old;
  sigemptyset(&pipe_only);
  sigaddset(&pipe_only, SIGPIPE);
  pthread_sigmask(SIG_BLOCK, &pipe_only, &old);
  ssize_t w = write(fd, p, n);
  int err = errno;
  if (w < 0 && err == EPIPE) {
    const struct timespec now = {0, 0};
    sigtimedwait(&pipe_only, NULL, &now);
  }
  pthread_sigmask(SIG_SETMASK, &old, NULL);
  errno = err;
  return w;
}

int ms_io_write_all(int fd, const void *buf, size_t n, size_t *done)
{
  const char *p = buf;
  size_t left = n;
  struct stat st;
  int regular = fstat(fd, &st) == 0 && S_ISREG(st.st_mode);
  int flags = fcntl(fd, F_GETFL);
  /* A blocking descriptor we did not open (standard output into a pipe) gets pieces of
   * at most PIPE_BUF bytes, which fit whole once poll() says there is room. */
  size_t piece = regular || (flags >= 0 && (flags & O_NONBLOCK)) ? n : PIPE_BUF;
  int rc = 0;
  while (left > 0) {
    if (!regular && wait_ready(fd, POLLOUT) != 0) {
      rc = -1;
      break;
    }
    ssize_t w = write_quietly(fd, p, left < piece ? left : piece);
    if (w < 0 && (errno == EINTR || errno == EAGAIN || errno == EWOULDBLOCK))
      continue;
    if (w <= 0) {
      if (w == 0)
        errno = EIO;
      rc = -1;
      break;
    }
    p += w;
    left -= (size_t)w;
  }
  if (done)
    *done = n - left;
  return rc;
}

ssize_t ms_io_read_full(int fd, void *buf, size_t n)
{
  char *p = buf;
  size_t got = 0;
  while (got < n) {
    /* (a FIFO without a writer yet reads as its end: wait for it to be readable first) */
    if (wait_ready(fd, POLLIN) != 0)
      return -1;
    ssize_t r = read(fd, p + got, n - got);
    if (r < 0 && (errno == EINTR || errno == EAGAIN || errno == EWOULDBLOCK))
      continue;
    if (r < 0)
      return -1;
    if (r == 0)
      break;
    got += (size_t)r;
  }
  return (ssize_t)got;
}

ms_status ms_io_test_full_check(void)
{
  const char *hook = getenv("MIXSIM_TEST_FULL");
  if (!hook || !*hook)
    return MS_OK;
  const char *colon = strchr(hook, ':');
  size_t len = colon ? (size_t)(colon - hook) : strlen(hook);
  long bytes = 0;
  if (len == 0 || memchr(hook, '/', len) ||
      (colon && ms_number_long(colon + 1, 0, LONG_MAX, &bytes) != MS_NUMBER_OK))
    return ms_fail(MS_ERR_INPUT, "MIXSIM_TEST_FULL: expected NAME[:BYTES], a file name (no "
                   "'/') and a whole number of bytes from 0, got '%s'", hook);
  return MS_OK;
}

int ms_io_test_full(const char *path, long long size)
{
  const char *hook = getenv("MIXSIM_TEST_FULL");
  if (!hook || !*hook)
    return 0;
  const char *colon = strchr(hook, ':');
  size_t len = colon ? (size_t)(colon - hook) : strlen(hook);
  const char *slash = strrchr(path, '/');
  const char *name = slash ? slash + 1 : path;
  if (strlen(name) != len || strncmp(name, hook, len) != 0)
    return 0;
  return size > (colon ? strtoll(colon + 1, NULL, 10) : 0);
}
