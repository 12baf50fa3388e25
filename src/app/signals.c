/* SIGINT/SIGTERM for the command line: one thread takes them and stops the run. */
#include "app/signals.h"

#include <pthread.h>
#include <signal.h>

/* SIGINT/SIGTERM: the running simulation stops after its current iteration.
 * The signals are blocked in every thread (the mask is set before any thread starts, and
 * OpenCL's and SDL's threads inherit it) and taken by one thread with sigwait: no handler
 * ever interrupts a thread. That matters because pocl compiles kernels in-process with
 * LLVM, whose own handlers delete the compiler's temporary files when a signal arrives
 * mid-build; the build would then fail instead of the run stopping. Nor can a signal wake
 * a thread blocked in an output, so none blocks: core/io_wait.h waits in slices on the
 * flag. */
volatile sig_atomic_t ms_app_signal;
static ms_sim *g_running;
static pthread_mutex_t g_running_lock = PTHREAD_MUTEX_INITIALIZER;

void ms_app_set_running(ms_sim *s)
{
  pthread_mutex_lock(&g_running_lock);
  g_running = s;
  if (s && ms_app_signal)
    ms_sim_request_stop(s);
  pthread_mutex_unlock(&g_running_lock);
}

static void *signal_thread(void *arg)
{
  const sigset_t *set = arg;
  for (;;) {
    int sig = 0;
    if (sigwait(set, &sig) != 0)
      continue;
    pthread_mutex_lock(&g_running_lock);
    ms_app_signal = sig;
    if (g_running)
      ms_sim_request_stop(g_running);
    pthread_mutex_unlock(&g_running_lock);
  }
  return NULL;
}

void ms_app_catch_signals(void)
{
  static sigset_t set;
  sigemptyset(&set);
  sigaddset(&set, SIGINT);
  sigaddset(&set, SIGTERM);
  pthread_sigmask(SIG_BLOCK, &set, NULL);
  pthread_t t;
  if (pthread_create(&t, NULL, signal_thread, &set) == 0)
    pthread_detach(t);
  else /* without the thread the signals must still end the run: unblock them */
    pthread_sigmask(SIG_UNBLOCK, &set, NULL);
}

