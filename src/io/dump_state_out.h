/* The state a --dump's rows do not hold, beside it as FILE.state.csv (ms_dump_state_path):
 * the grid's radius and, with friction, the contact histories, so that a scene reading the
 * dump goes on as the dumped run did (scene/dump_state.c reads it; docs/output.md). */
#ifndef MS_IO_DUMP_STATE_OUT_H
#define MS_IO_DUMP_STATE_OUT_H

#include "mixsim/sim.h"

/* After the dump `dump_path` was written from `s`: its state beside it, bound to the
 * dump's bytes (CRC-32 and size). A dump on "-", a device or a FIFO has no place beside
 * it: with friction that is warned about, naming what a run from it loses. */
ms_status ms_dump_state(const char *dump_path, ms_sim *s);

#endif
