/* Reading files: a whole file into memory (kernel sources loaded from MIXSIM_KERNEL_DIR),
 * and the bounded, line-by-line reading of input files (scenes, body CSVs) that never
 * blocks on a FIFO or reads a device forever. */
#ifndef MS_FILE_H
#define MS_FILE_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

/* Returns the contents of `path` with a '\0' appended (free it), its length in *len
 * when len is not NULL; NULL when the file cannot be opened or read. */
char *ms_read_file(const char *path, size_t *len);

/* Opens `path` for reading if it is a regular file of at most max_bytes; a folder, a
 * FIFO or a device is refused without reading (or waiting for) anything. On failure
 * returns NULL with the reason in `why` ("a folder, not a regular file", "20000000
 * bytes, more than 16777216", or the system's message). */
FILE *ms_open_regular(const char *path, long max_bytes, char *why, size_t size);

/* CRC-32 (zlib's) and size of the file at `path`. Returns 0, or -1 with errno set when
 * it cannot be opened or read. */
int ms_file_crc32(const char *path, uint32_t *crc, uint64_t *bytes);

/* zlib's crc32 of n bytes, continued from `crc`: crc32 takes a 32-bit length, so large
 * arrays go in pieces (the CRC is the same). For the state hash and checkpoints. */
unsigned long ms_crc32_update(unsigned long crc, const void *p, size_t n);

/* One line as ms_read_line read it. */
typedef struct ms_line {
  size_t len;   /* bytes stored in the buffer, '\n' included, NULs included */
  int complete; /* the line ended ('\n' or end of file) within the buffer */
  int has_nul;  /* a NUL byte, which would silently cut the line short */
} ms_line;

/* Reads one line into buf (size >= 2 bytes, '\0'-terminated), like fgets, but says
 * whether it held a NUL byte and whether it was cut at the buffer's end (the rest
 * of such a line is left unread). Returns 0 at the end of the file or on a read
 * error (ferror tells which), 1 otherwise. */
int ms_read_line(FILE *f, char *buf, size_t size, ms_line *line);

#endif
