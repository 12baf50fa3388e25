/* The scene's identity in a checkpoint (mixsim/checkpoint.h, ms_scene_id): the files the
 * scene reads, recorded at the payload's start and compared with the running scene's
 * before anything else of the payload is used, so a changed particle file is named. */
#ifndef MS_IO_SCENE_IDENTITY_H
#define MS_IO_SCENE_IDENTITY_H

#include <stdint.h>
#include <stdio.h>

#include "mixsim/checkpoint.h"

/* The record's bytes: the count, each file (CRC-32, key length, size, key), a CRC-32 of
 * the record. `id` may be NULL (no files). */
uint64_t ms_sid_record_size(const ms_scene_id *id);

/* Writes the record (f NULL: only runs the CRC); `crc` (the payload's) goes on over it.
 * Returns 0, or -1 on a write error. */
int ms_sid_record_write(FILE *f, const ms_scene_id *id, unsigned long *crc);

/* Reads a record of at most `room` bytes into `saved` (free with ms_scene_id_free);
 * `crc` goes on over it, *bytes gets its size. A refusal names the checkpoint `path`. */
ms_status ms_sid_record_read(int fd, const char *path, uint64_t room, ms_scene_id *saved,
                             unsigned long *crc, uint64_t *bytes);

/* "written from another scene", naming the first file that differs between the record
 * and the running scene's identity `now` (may be NULL). */
ms_status ms_sid_compare(const char *path, const ms_scene_id *saved, const ms_scene_id *now);

/* A checkpoint of a format before the record (version < 4): refused when the scene reads
 * a file besides its own, since whether it changed cannot be told. */
ms_status ms_sid_without_record(const char *path, uint32_t version, const ms_scene_id *now);

#endif
