/* mixsim: a heterogeneous CPU+GPU mixed-particle simulator. The whole public API. */
#ifndef MIXSIM_H
#define MIXSIM_H

#include "mixsim/gravity.h"
#include "mixsim/scene.h"
#include "mixsim/sim.h"
#include "mixsim/status.h"

#define MIXSIM_VERSION "0.1.0"

#endif
