/* SIGINT/SIGTERM for the command line: blocked in every thread and taken by one, which
 * records the signal and asks the running simulation to stop (signals.c says why). */
#ifndef MS_APP_SIGNALS_H
#define MS_APP_SIGNALS_H

#include <signal.h>

#include "mixsim/mixsim.h"

/* The signal that came (SIGINT or SIGTERM), 0 while none has: written by the signal thread
 * alone, read by every wait that a stop must end (runs, windows, core/io_wait.h). */
extern volatile sig_atomic_t ms_app_signal;

/* Blocks the two signals in this thread and every thread it starts later (call it before
 * any other thread starts) and starts the thread that takes them. */
void ms_app_catch_signals(void);

/* The simulation a signal stops, or NULL: set it before running, clear it before
 * destroying the simulation. */
void ms_app_set_running(ms_sim *s);

#endif
