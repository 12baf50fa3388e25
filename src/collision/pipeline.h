/* The iteration as the two threads run it, naive or reordered; see pipeline.c. */
#ifndef MS_PIPELINE_H
#define MS_PIPELINE_H

#include "collision/sim_internal.h"

/* Runs `iterations` iterations on a GPU manager thread and a CPU worker thread. */
ms_status ms_pipeline_run(ms_sim *s, long iterations);

#endif
