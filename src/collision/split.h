/* A split run's domain meeting its neighbours between iterations, on its own device
 * (kernels/domains.cl, docs/domains.md "The incremental meeting"): each slot has a role (own,
 * halo, empty); after a step the own particles go, as records, to every domain that needs
 * them (their owner now, and every domain whose window holds them), grouped by destination,
 * the halo is dropped, and the records given to this domain are laid into its empty slots.
 * Only the records cross the bus: a few columns' particles, whatever the domain's size.
 * Between advances only, on the caller's thread. */
#ifndef MS_COLLISION_SPLIT_H
#define MS_COLLISION_SPLIT_H

#include "cl/runtime.h"
#include "mixsim/sim.h"

#define MS_SPLIT_MAX 64 /* domains */

enum { MS_ROLE_EMPTY = 0, MS_ROLE_OWN = 1, MS_ROLE_HALO = 2 };

/* The cut as the kernels take it: P domains, domain d owning columns [start[d],
 * start[d + 1]) along `axis`, each holding `w` columns more each side. */
typedef struct ms_split_cut {
  int P, axis, w, ncol, periodic;
  double inv_cell;
  int start[MS_SPLIT_MAX + 1];
} ms_split_cut;

/* One particle on its way (kernels/domains.cl's 8 doubles): its state, its global slot,
 * and to whom: dest = domain * 4 + role there. */
typedef struct ms_split_record {
  double pos[2], vel[2];
  float shape[2];
  int img[2];
  int key, dest;
  double unused;
} ms_split_record;

typedef struct ms_split {
  int slots;                  /* the simulation's slots the buffers were made for */
  int g_slots;                /* the whole state's slots: a key past them is empty */
  cl_mem role, role_next, count, to_mem, at_mem, out, left_mem, start, in, in_slot, column_mem;
  int room, in_room, ncol;
  int n_rec;                  /* the last pack's (or ms_split_own's) records, on the device */
  int to[MS_SPLIT_MAX];       /* of them, for each domain in turn (ms_split_own's: all in [0]) */
  int n_left;                 /* the last pack's slots left, not yet free */
  int *left;                  /* (slots) */
  int *free_slot, n_free;     /* the empty slots, as a stack */
  int *column;                /* ms_split_own: own particles per column */
  int *slot_scratch;          /* ms_split_unpack's */
  unsigned long long shuffle; /* MIXSIM_SPLIT_SHUFFLE's generator (0: off) */
  int grain;                  /* slots per chunk of the host's loops over them (split.c) */
  /* ms_split_records_pinned's two page-locked buffers, used in turn, mapped on `pin_queue` */
  cl_mem pin[2];
  void *pin_at[2];
  size_t pin_room[2];
  int pin_next;
  cl_command_queue pin_queue;
  /* ms_split_mark's copy: the small particles' arrays and roles on the device, the large
   * particles and the step on the host */
  cl_mem keep[6];
  size_t keep_bytes[6];
  void *keep_large;
  long keep_step;
  int kept;
} ms_split;

/* The last pack's (or ms_split_own's) n_rec records, read into `to`. */
ms_status ms_split_records(ms_sim *s, const ms_split *x, ms_split_record *to);
/* The same read into the next of two page-locked buffers (a read there runs at the bus's
 * speed), *out pointing at them: they stay until the next call but one. */
ms_status ms_split_records_pinned(ms_sim *s, ms_split *x, const ms_split_record **out);

/* Room for `records` each way on the device and, `pinned`, in both page-locked buffers:
 * made once at a lay rather than by the first meetings (page-locking costs milliseconds). */
ms_status ms_split_reserve(ms_sim *s, ms_split *x, int records, int pinned);

/* After a lay: each slot's role (MS_ROLE_*), the whole state's slot count. */
ms_status ms_split_begin(ms_sim *s, ms_split *x, const unsigned char *role, int g_slots);
/* After a step: the records for the other domains (on the device: ms_split_records), those
 * for domain 0 first, then domain 1's..., x->to[] of each; and the slots this one leaves;
 * the slots keep their roles until ms_split_commit. */
ms_status ms_split_pack(ms_sim *s, ms_split *x, const ms_split_cut *c, int d);
/* The pack's roles taken, the slots left emptied and free. */
ms_status ms_split_commit(ms_sim *s, ms_split *x);
/* Records given to this domain: n of them from r on. */
typedef struct ms_split_part {
  const ms_split_record *r;
  int n;
} ms_split_part;

/* The parts' records into free slots (the caller checked that there are enough: no more
 * than x->n_free after the commit), written straight from where they are. The host does
 * not wait for their writes: the parts stay as they are until the next ms_split_pack or
 * ms_split_finish. */
ms_status ms_split_unpack(ms_sim *s, ms_split *x, const ms_split_part *part, int parts);
/* The own particles' counts per column into x->column, and with `records` their records
 * (on the device: ms_split_records). */
ms_status ms_split_own(ms_sim *s, ms_split *x, const ms_split_cut *c, int records);
void ms_split_free(ms_split *x);
/* Waits for the domain's writes (before its records' memory goes). */
ms_status ms_split_finish(ms_sim *s);
/* Keeps the domain's state (device to device, and its large particles), for a rewind. */
ms_status ms_split_mark(ms_sim *s, ms_split *x);
/* Back to the state ms_split_mark kept, its roles and free slots with it. */
ms_status ms_split_rewind(ms_sim *s, ms_split *x);

/* Large particle j's evolving state (x, y, vx, vy; periods crossed), between advances. */
void ms_split_large_get(const ms_sim *s, int j, double xv[4], int img[2]);
void ms_split_large_set(ms_sim *s, int j, const double xv[4], const int img[2]);

/* The domain's CPU worker calls `take` as it starts each iteration, `give` after it
 * integrates its large particles (a failure of either is the advance's), and `leave` when
 * it leaves an advance short of its end; NULL `take`: none of them. Between advances. */
typedef struct ms_split_large_hooks {
  ms_status (*take)(void *ctx, ms_sim *s, long step);
  ms_status (*give)(void *ctx, ms_sim *s, long step);
  void (*leave)(void *ctx);
  void *ctx;
} ms_split_large_hooks;
void ms_split_large_hook(ms_sim *s, const ms_split_large_hooks *h);

/* The cells the domain's particles lie in through its next steps: columns lo .. hi - 1
 * along the cut's axis (taken round it where it wraps), every cell across; lo <= 0 and
 * hi >= the axis's columns together: the whole grid. Its grid's clear and sort and its
 * zone's sweeps then visit those cells only; a particle found outside them makes the build
 * again over the whole grid (kernels/shared/grid.h), so the state never depends on them. */
void ms_split_grid_span(ms_sim *s, int axis, long lo, long hi);

/* The speed past which a domain's step fails (squared; 0: none): the scene's, or a
 * meeting's tighter bound, on which its windows rely (domains/live.c). */
ms_status ms_split_speed_limit(ms_sim *s, double max_speed2);

#endif
