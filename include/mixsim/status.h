/* Status codes and the one place error messages are kept. */
#ifndef MIXSIM_STATUS_H
#define MIXSIM_STATUS_H

/* Each status maps to the process exit code the CLI uses. */
typedef enum ms_status {
  MS_OK = 0,
  MS_ERR_RUNTIME = 1,     /* OpenCL call failed, I/O error, out of memory */
  MS_ERR_INPUT = 2,       /* bad scene, bad option */
  MS_ERR_NO_PLATFORM = 3, /* no OpenCL platform or device */
  MS_ERR_NUMERIC = 4,     /* NaN/Inf or runaway state */
  MS_ERR_ABORTED = 5,     /* the other thread failed; its message is the one kept */
  MS_ERR_STOPPED = 6      /* a wait on a file (a FIFO, a pipe) was ended by SIGINT/SIGTERM:
                             the CLI exits 128 + the signal, as for any stop */
} ms_status;

/* Records a formatted message and returns `status`. The first message since the
 * last ms_error_clear() wins, so a failure in one thread is not overwritten by the
 * other thread's "aborted". Thread safe. */
ms_status ms_fail(ms_status status, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

const char *ms_error_message(void);
void ms_error_clear(void);

/* The first message recorded by the calling thread since its last
 * ms_error_thread_clear(), or NULL; and a replacement for the kept message. For a
 * caller that joins several threads and must report their failures by a fixed rule. */
const char *ms_error_thread_message(void);
void ms_error_thread_clear(void);
void ms_error_replace(const char *text);

/* Warnings go straight to stderr (prefixed), unless silenced. */
void ms_warn(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
void ms_set_quiet(int quiet);

#endif
