/* Contacts per particle for the output time series, counted on the writer thread from a
 * copy of the state with the force law's own test (kernels/shared/contact.h), as
 * collision/summary.c counts them for the report: touching partners at the written step,
 * walls included (each wall that pushes the particle counts one; a [wall.NAME] counts
 * each of its contacts, a polyline's two in a concave corner two); two static large
 * particles never touch (they do not act on each other). */
#ifndef MS_IO_CONTACTS_H
#define MS_IO_CONTACTS_H

#include <stdint.h>

#include "io/wall_frame.h"
#include "mixsim/status.h"

typedef struct ms_contact_input {
  int n, n_small;        /* particles, small ones first */
  const double *pos;     /* 2 per particle, simulation frame (from the box's min corner) */
  const float *radius;
  const uint8_t *kind;   /* 0 small, 1 dynamic large, 2 static large */
  double box[2];         /* the box: [0, box[0]] x [0, box[1]] */
  double side[4];        /* x0, x1, y0, y1 of the sides with a wall (+-HUGE_VAL: none) */
  double period[2];      /* a periodic side's length, else 0 */
  const ms_wall_frame *scene; /* the scene's walls at the step; NULL: none */
} ms_contact_input;

/* Fills count[0 .. n-1]. MS_ERR_RUNTIME when out of memory. */
ms_status ms_count_contacts(const ms_contact_input *in, int32_t *count);

#endif
