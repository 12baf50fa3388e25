/* File I/O that may have to wait (a FIFO without a reader or writer, a pipe nobody
 * reads) without making the process deaf: every wait is a poll() in short slices that
 * ends once a stop is requested. SIGINT/SIGTERM never interrupt a system call here
 * (they are taken by a sigwait thread, app/main.c), so this is how a stop reaches a
 * thread blocked in an output. Regular files never wait and are untouched by it. */
#ifndef MS_IO_WAIT_H
#define MS_IO_WAIT_H

#include <signal.h>
#include <stddef.h>
#include <sys/types.h>

#include "mixsim/status.h"

/* The flag whose being set ends every wait (the signal thread's); NULL: waits last. */
void ms_io_set_stop_flag(const volatile sig_atomic_t *flag);

/* Was a stop requested? */
int ms_io_stop_requested(void);

/* open(2) with O_NONBLOCK and O_NOCTTY added, so that a FIFO's open never blocks; one
 * opened for writing without a reader (ENXIO) is retried every slice until a reader
 * comes, or a stop (no reader by then: none is coming). The descriptor stays
 * non-blocking. Returns it, or -1 with errno: ECANCELED when a stop ended the wait. */
int ms_io_open(const char *path, int flags, mode_t mode);

/* Writes all `n` bytes to `fd`, waiting for room in slices. After a stop it goes on
 * while the reader takes something at least every half second (a live reader gets the
 * whole output; one that never reads costs half a second). Returns 0, or -1 with errno
 * and the bytes written in *done (may be NULL): ECANCELED when a stop ended a wait,
 * EPIPE when the reader went away (no SIGPIPE is raised). */
int ms_io_write_all(int fd, const void *buf, size_t n, size_t *done);

/* Reads up to `n` bytes, fewer only at the end of the file, waiting for data in slices
 * (a FIFO's writer may not have come yet; after a stop, half a second at most each).
 * Returns the count, or -1 with errno (ECANCELED: a stop ended the wait). */
ssize_t ms_io_read_full(int fd, void *buf, size_t n);

/* A test hook for the full-disk path (no root, no small filesystem needed):
 * MIXSIM_TEST_FULL=NAME[:BYTES] makes a write fail with ENOSPC where it would make the
 * file named NAME (the last part of its path) longer than BYTES (default 0). Returns 1
 * when a file `path` of `size` bytes is over it. */
int ms_io_test_full(const char *path, long long size);
/* Refuses a malformed MIXSIM_TEST_FULL (MS_ERR_INPUT, naming it): a hook that silently
 * matched nothing would let a test pass for the wrong reason. */
ms_status ms_io_test_full_check(void);

#endif
