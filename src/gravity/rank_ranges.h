/* Each MPI rank's range of the bodies, laid over the rank's own devices (gravity/split.h):
 * set up in equal shares once the devices are open, then planned again from the ranks'
 * measured speeds, moving the state with the bodies. The MPI calls this takes are those of
 * gravity/ranks.h; in one rank there is nothing to attach and nothing to move. */
#ifndef MS_GRAVITY_RANK_RANGES_H
#define MS_GRAVITY_RANK_RANGES_H

#include "gravity/ranks.h"
#include "gravity/split.h"
#include "mixsim/status.h"

/* Sets up the ranks' ranges (equal shares in granules), splits this rank's range among
 * its devices (`set` must have been opened) and takes rank 0's choice of the exchange
 * (MIXSIM_MPI_EXCHANGE: allgatherv, the default, or ring, each optionally -timed).
 * Collective. */
ms_status ms_ranks_attach(ms_gset *set, ms_rank_split *r);
void ms_rank_split_free(ms_rank_split *r);

/* Collective, after ms_gset_finish (its status `st`): gathers the ranks' force speeds
 * (MPI_Allgather), plans new rank ranges by speed and, when they change, moves the state
 * (pos, vel, acc: host scratch arrays of n_pad float4) and re-splits this rank's devices.
 * Without ranks attached (set->ranks NULL: one rank) it returns the agreed `st`. */
ms_status ms_ranks_rebalance(ms_gset *set, ms_status st, float *pos, float *vel, float *acc);

#endif
