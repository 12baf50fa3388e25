/* Output files (stats, dumps, checkpoints, PNG frames): checked before a run, written
 * whole or not at all where the path is a file, written through where it is something
 * else (a device, a FIFO), never replaced, in waits a stop ends; "-" is standard output. */
#ifndef MS_OUTPUT_FILE_H
#define MS_OUTPUT_FILE_H

#include <stdio.h>
#include <sys/types.h>
#include <time.h>

#include "mixsim/status.h"

/* Writes `path` through `write`. "-" is standard output. A regular file or a new path
 * is written into a temporary file beside it (beside the target of a symlink, which
 * stays a link), fsynced and renamed over it: on failure nothing is left behind and an
 * old file stays as it was. Anything else that exists (a device node, a FIFO) is opened
 * and written straight through, composed in memory first so that every wait for its
 * reader (a FIFO's open, a full pipe) ends on a stop (core/io_wait.h): MS_ERR_STOPPED
 * then, with what could be written written. */
ms_status ms_write_atomic(const char *path, int (*write)(FILE *f, void *ctx), void *ctx);

/* The same for an open stream (stdout, stderr: the report), written through. */
ms_status ms_write_stream(FILE *stream, int (*write)(FILE *f, void *ctx), void *ctx);

/* After a failed write (st != MS_OK) of the output of option `opt`: says so on stderr,
 * naming the option, even when quiet, and clears the message so that the next failure
 * is heard too. Returns 1 for a failure, 0 for MS_OK. */
int ms_output_failed(ms_status st, const char *opt);

/* The outputs a run could not write, by option ("--stats"), and why. */
typedef struct ms_lost_outputs {
  const char *opt[8];
  ms_status why[8]; /* MS_ERR_STOPPED: a stop ended its wait for a reader */
  int n;
} ms_lost_outputs;

/* After writing the output of option `opt` (st: how it went): a failure is said as
 * ms_output_failed does, once per option (periodic checkpoints may fail again and
 * again), and remembered. */
void ms_lost_note(ms_lost_outputs *l, ms_status st, const char *opt);

/* Was the output of `opt` lost? */
int ms_lost_has(const ms_lost_outputs *l, const char *opt);

/* How many were lost to a failure rather than to a stop (SIGINT/SIGTERM)? */
int ms_lost_failed(const ms_lost_outputs *l);

/* At the end of a run: names every lost output on stderr ("the run ended and its report
 * is complete, but --stats was not written"); returns how many were lost. */
int ms_lost_say(const ms_lost_outputs *l);

/* Before a run: can `path` be written as the output of option `opt`? It must not be a
 * folder, and its folder must exist and be writable (a device or FIFO must be
 * writable). "-" passes when `allow_stdout`. MS_ERR_INPUT with a message naming `opt`
 * and the path otherwise. */
ms_status ms_output_check(const char *opt, const char *path, int allow_stdout);

/* Before a run: `dir` is a writable folder, or one that ms_output_make_dir can make
 * (its parent exists and is writable). MS_ERR_INPUT naming `opt` otherwise. */
ms_status ms_output_check_dir(const char *opt, const char *dir);

/* Where a write to a path lands, whatever its spelling ("./x", "a/../x", a symlink, a
 * hard link): an existing regular file by its device and inode, a new one by its folder's
 * and its name in it (symlinks of the name followed, as ms_write_atomic does). */
typedef struct ms_output_id {
  int replaced; /* a regular file or a new path, whose folder exists: a write replaces it */
  int exists;   /* dev, ino and links are the file's own */
  dev_t dev, dir_dev;
  ino_t ino, dir_ino;
  nlink_t links;
  char name[256]; /* the name in its folder */
} ms_output_id;

/* Fills `id`; returns id->replaced. "-", a device or FIFO (written through, never
 * replaced), a folder that does not exist, or a loop of links give 0. */
int ms_output_identify(const char *path, ms_output_id *id);

/* Do the two land on one file? Only what a write replaces can be the same. */
int ms_output_id_same(const ms_output_id *a, const ms_output_id *b);

/* Would outputs `a` and `b` replace the same file? Devices, FIFOs and "-" are never the
 * same file: writes to them simply follow each other. */
int ms_output_same_file(const char *a, const char *b);

/* Makes the folder `dir` (one level, mode 0755) unless it exists. */
ms_status ms_output_make_dir(const char *dir);

/* Removes the temporary files that killed runs left beside `path`: regular files of
 * ours named exactly "<name>.tmpXXXXXX" (6 letters or digits, as mkstemp makes them)
 * and last modified before `before`. Returns how many were removed. */
int ms_output_clean_stale(const char *path, time_t before);

/* The same for the frames in folder `dir`: "frame_NNNNNN.png.tmpXXXXXX". */
int ms_output_clean_stale_frames(const char *dir, time_t before);

/* Writes `text` as a JSON string literal, escaped. Bytes that are not part of valid
 * UTF-8 (a file name in another encoding) are written as \u00XX, the byte read as
 * Latin-1, so the JSON stays valid. */
void ms_json_string(FILE *f, const char *text);

#endif
