/* The run's walls from the scene's [wall.NAME] sections (collision/base/params.h,
 * ms_wall_def): shapes copied, motions in the form kernels/shared/wall.h takes, the
 * contact coefficients from each wall's restitution and friction. */
#ifndef MS_WALL_DEF_H
#define MS_WALL_DEF_H

#include "collision/base/params.h"

ms_status ms_wall_defs_make(ms_params *p, const ms_scene *sc);
void ms_wall_defs_free(ms_params *p);

#endif
