/* The checkpoint file format shared by the modes (checkpoint_file.c): a payload is a
 * table of fields, in sections whose leading counts size their arrays; the helpers read
 * and write a table's image and name the file and the field when they refuse one. */
#ifndef MS_CHECKPOINT_FILE_H
#define MS_CHECKPOINT_FILE_H

#include <stddef.h>
#include <stdint.h>

#include "mixsim/checkpoint.h"
#include "mixsim/status.h"

typedef struct field {
  const char *name;
  size_t (*size)(const void *im);
  void *(*at)(void *im);
} field;

#define SCALAR(T, member)                                                            \
  static size_t sz_##T##_##member(const void *im) { (void)im; return sizeof(((T *)0)->member); } \
  static void *at_##T##_##member(void *im) { return &((T *)im)->member; }
#define ARRAY(T, member, count_expr)                                                 \
  static size_t sz_##T##_##member(const void *v) { const T *im = v; return (size_t)(count_expr) * sizeof(*im->member); } \
  static void *at_##T##_##member(void *im) { return ((T *)im)->member; }
#define F(T, member, name) {name, sz_##T##_##member, at_##T##_##member}

/* A mode's payload: its table, in sections; each section's leading `counts` fields
 * are counts, after which its arrays are made room for. release frees them all. A
 * section added by a later format version names it in `since` (0: in every version the
 * layout reads); such sections come last, and a file of an older version ends before
 * them: they are then not read, and their fields stay as the caller zeroed them. */
#define MAX_SECTIONS 5
typedef struct section_def {
  int first, counts; /* the section's first field, and the field after its counts */
  int (*alloc)(void *im);
  uint32_t since; /* the format version that added the section; 0: every version */
} section_def;

typedef struct layout {
  uint32_t mode;
  uint32_t oldest; /* the oldest format version whose payload this layout still reads */
  const field *fields;
  int n_fields, n_sections;
  section_def section[MAX_SECTIONS];
  void (*release)(void *im);
} layout;

/* What a mode checks of a file's fields against the running simulation (ctx): each
 * section's counts before its arrays are allocated, every field once the checksums
 * hold. Each returns MS_OK or a refusal naming the file and the field. */
typedef struct checks {
  ms_status (*counts)(const char *path, const void *im, const void *ctx, int section);
  ms_status (*fields)(const char *path, const void *im, const void *ctx);
} checks;

/* Writes `im` by its layout, atomically. */
ms_status ms_ck_save(const char *path, const layout *l, void *im, const ms_scene_id *scene_id);

/* Reads and checks the whole file into `im` (zeroed by the caller); on failure frees
 * what it allocated. */
ms_status ms_ck_read(const char *path, const layout *l, void *im, const ms_scene_id *scene_id,
                     const checks *chk, const void *ctx);

/* "checkpoint 'PATH' refused: field 'NAME' ...", MS_ERR_INPUT. */
ms_status ms_ck_refuse_field(const char *path, const char *field, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
ms_status ms_ck_non_finite(const char *path, const char *field, size_t i);
ms_status ms_ck_finite_doubles(const char *path, const char *field, const double *v, size_t n);
ms_status ms_ck_finite_floats(const char *path, const char *field, const float *v, size_t n);
/* The largest counter a checkpoint may hold: a run adds to its counters (a build, a
 * resumed session's sum) without overflowing from there, and JSON readers keep it exact. */
#define MS_CK_COUNTER_MAX (INT64_C(1) << 53)
/* A counter of the run: at least 0, at most `max` when max_name is given, at most
 * MS_CK_COUNTER_MAX. */
ms_status ms_ck_counter(const char *path, const char *field, int64_t v, int64_t max,
                        const char *max_name);

#endif
