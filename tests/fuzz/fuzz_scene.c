/* Fuzz harness for the scene loader: any byte string must load or be rejected with a
 * message, never crash, leak or hang. Built two ways: with libFuzzer (tools/dev/fuzz.sh),
 * and with MS_FUZZ_REPLAY as a plain program that replays files (the regression corpus
 * in meson test). */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "mixsim/scene.h"

/* Bounds the work of one input: valid scenes asking for huge particle counts are
 * slow by design, not bugs, and a body file could name a device such as /dev/zero;
 * both are skipped here (the CSV reader has tests of its own). */
static int too_big(const char *text)
{
  if (strstr(text, "file"))
    return 1;
  static const char *const keys[] = {"count", "n =", "n="};
  for (size_t k = 0; k < sizeof keys / sizeof keys[0]; k++) {
    for (const char *p = strstr(text, keys[k]); p; p = strstr(p + 1, keys[k])) {
      const char *eq = strchr(p, '=');
      const char *nl = strchr(p, '\n');
      if (eq && (!nl || eq < nl) && strtod(eq + 1, NULL) > 20000.0)
        return 1;
    }
  }
  return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
  if (size > 65536)
    return 0;
  char *text = malloc(size + 1);
  if (!text)
    return 0;
  memcpy(text, data, size);
  text[size] = '\0';
  if (!too_big(text)) {
    ms_scene scene;
    ms_error_clear();
    if (ms_scene_load_string(text, "fuzz.ini", &scene) == MS_OK)
      ms_scene_free(&scene);
    else if (ms_error_message()[0] == '\0')
      abort(); /* a rejection must say why */
  }
  free(text);
  return 0;
}

#ifdef MS_FUZZ_REPLAY
int main(int argc, char **argv)
{
  int n = 0;
  for (int i = 1; i < argc; i++) {
    FILE *f = fopen(argv[i], "rb");
    if (!f) {
      fprintf(stderr, "cannot open %s\n", argv[i]);
      return 1;
    }
    static uint8_t buf[65536];
    size_t len = fread(buf, 1, sizeof buf, f);
    fclose(f);
    LLVMFuzzerTestOneInput(buf, len);
    n++;
  }
  printf("replayed %d inputs\n", n);
  return n > 0 ? 0 : 77;
}
#endif
