/* Reading a whole file into memory (kernel sources loaded from MIXSIM_KERNEL_DIR). */
#ifndef MS_FILE_H
#define MS_FILE_H

#include <stddef.h>

/* Returns the contents of `path` with a '\0' appended (free it), its length in *len
 * when len is not NULL; NULL when the file cannot be opened or read. */
char *ms_read_file(const char *path, size_t *len);

#endif
