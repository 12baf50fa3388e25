/* Scene loader, reading: every line passes here before inih sees it, so lines are
 * counted, malformed lines and section headers are caught with their line, and every
 * message has the form "path:line: [section] key: problem". */
#include "scene/loader.h"

#include <ctype.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/file.h"
#include "core/strtrim.h"

__attribute__((format(printf, 5, 0))) static int
vfail_at(loader *ld, int line, const char *section, const char *key, const char *fmt, va_list ap)
{
  if (ld->status != MS_OK)
    return 0;
  char problem[640], where[200] = "";
  vsnprintf(problem, sizeof problem, fmt, ap);
  if (section && key)
    snprintf(where, sizeof where, "[%s] %s: ", section, key);
  else if (section)
    snprintf(where, sizeof where, "[%s] ", section);
  else if (key)
    snprintf(where, sizeof where, "%s: ", key);
  if (line > 0)
    snprintf(ld->message, sizeof ld->message, "%s:%d: %s%s", ld->path, line, where, problem);
  else
    snprintf(ld->message, sizeof ld->message, "%s: %s%s", ld->path, where, problem);
  ld->status = MS_ERR_INPUT;
  ld->error_line = line;
  return 0;
}

/* Records the first error as "path:line: [section] key: problem". Returns 0 so that
 * callers can `return ms_ld_fail_at(...)` from a handler. */
__attribute__((format(printf, 5, 6))) int
ms_ld_fail_at(loader *ld, int line, const char *section, const char *key, const char *fmt, ...)
{
  va_list ap;
  va_start(ap, fmt);
  vfail_at(ld, line, section, key, fmt, ap);
  va_end(ap);
  return 0;
}

__attribute__((format(printf, 5, 6))) void
ms_ld_warn_at(loader *ld, int line, const char *section, const char *key, const char *fmt, ...)
{
  ms_scene *s = ld->scene;
  if (s->warning_count++ >= MS_SCENE_WARNINGS_MAX)
    return;
  char text[640], full[1536];
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(text, sizeof text, fmt, ap);
  va_end(ap);
  snprintf(full, sizeof full, "%s:%d: [%s] %s: %s", ld->path, line, section, key, text);
  char *out = s->warnings[s->warning_count - 1];
  size_t n = strlen(full), cap = sizeof s->warnings[0] - 1;
  memcpy(out, full, n < cap ? n : cap);
  out[n < cap ? n : cap] = '\0';
}

static const char *current_name(const loader *ld)
{
  return ld->current >= 0 ? ld->sections[ld->current].name : NULL;
}

/* An error about the value being read. */
__attribute__((format(printf, 2, 3))) int ms_ld_bad_value(loader *ld, const char *fmt, ...)
{
  va_list ap;
  va_start(ap, fmt);
  vfail_at(ld, ld->line, current_name(ld), ld->key, fmt, ap);
  va_end(ap);
  return 0;
}

/* An error found after parsing, at the line of `key` (or the section header). */
__attribute__((format(printf, 4, 5))) int
ms_ld_fail_key(loader *ld, const section *sec, const char *key, const char *fmt, ...)
{
  int line = ms_ld_line_of(sec, key);
  va_list ap;
  va_start(ap, fmt);
  vfail_at(ld, line ? line : sec->line, sec->name, key, fmt, ap);
  va_end(ap);
  return 0;
}

/* A warning about a key's value (ms_warn: silenced by --quiet), in the errors' form. */
__attribute__((format(printf, 4, 5))) void
ms_ld_warn_key(const loader *ld, const section *sec, const char *key, const char *fmt, ...)
{
  char problem[640];
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(problem, sizeof problem, fmt, ap);
  va_end(ap);
  int line = ms_ld_line_of(sec, key);
  ms_warn("%s:%d: [%s] %s: %s", ld->path, line ? line : sec->line, sec->name, key, problem);
}

int ms_ld_fail_memory(loader *ld)
{
  snprintf(ld->message, sizeof ld->message, "%s: out of memory", ld->path);
  ld->status = MS_ERR_RUNTIME;
  ld->error_line = 0;
  return 0;
}

/* Returns `array` grown to hold at least `need` elements of `size` bytes, or NULL
 * (leaving it as it was). */
static void *grow(void *array, int *cap, int need, size_t size)
{
  if (need <= *cap)
    return array;
  int n = *cap ? *cap * 2 : 8;
  while (n < need)
    n *= 2;
  void *p = realloc(array, (size_t)n * size);
  if (p)
    *cap = n;
  return p;
}

/* NAME of [large.NAME] / [large_random.NAME] / [large_file.NAME] / [wall.NAME] /
 * [inflow.NAME] / [outflow.NAME]: non-empty, letters, digits, _ and -. */
static int valid_item_name(const char *s)
{
  if (!*s)
    return 0;
  for (; *s; s++)
    if (!isalnum((unsigned char)*s) && *s != '_' && *s != '-')
      return 0;
  return 1;
}

static int add_item(loader *ld, section *sec)
{
  int index = ld->section_count - 1;
  if (sec->kind == SEC_LARGE) {
    large_spec *grown = grow(ld->large, &ld->large_cap, ld->large_count + 1, sizeof *grown);
    if (!grown)
      return ms_ld_fail_memory(ld);
    ld->large = grown;
    sec->item = ld->large_count++;
    ld->large[sec->item] = (large_spec){.section = index, .density = 1000.0};
  } else if (sec->kind == SEC_LARGE_RANDOM) {
    group_spec *grown = grow(ld->groups, &ld->group_cap, ld->group_count + 1, sizeof *grown);
    if (!grown)
      return ms_ld_fail_memory(ld);
    ld->groups = grown;
    sec->item = ld->group_count++;
    ld->groups[sec->item] = (group_spec){.section = index, .density = 1000.0};
  } else if (sec->kind == SEC_LARGE_FILE) {
    particle_file *grown = grow(ld->files, &ld->file_cap, ld->file_count + 1, sizeof *grown);
    if (!grown)
      return ms_ld_fail_memory(ld);
    ld->files = grown;
    sec->item = ld->file_count++;
    ld->files[sec->item] = (particle_file){.section = index, .density = 1000.0};
  } else if (sec->kind == SEC_SMALL) {
    ld->small.section = index;
  } else if (sec->kind == SEC_WALL) {
    return ms_ld_add_wall(ld, sec);
  } else if (sec->kind == SEC_INFLOW || sec->kind == SEC_OUTFLOW) {
    return ms_ld_add_flow(ld, sec);
  }
  return 1;
}

/* Section names are looked up in an open-addressed table of section indices, so a
 * scene of many [large.NAME] sections loads in linear time. */
static uint32_t name_hash(const char *s)
{
  uint32_t h = 2166136261u; /* FNV-1a */
  for (; *s; s++)
    h = (h ^ (unsigned char)*s) * 16777619u;
  return h;
}

/* The slot of `name`: holding its index, or -1 where it would go. */
static int *name_slot(const loader *ld, const char *name)
{
  uint32_t mask = (uint32_t)ld->name_cap - 1;
  for (uint32_t i = name_hash(name) & mask;; i = (i + 1) & mask) {
    int *slot = &ld->name_slots[i];
    if (*slot < 0 || strcmp(ld->sections[*slot].name, name) == 0)
      return slot;
  }
}

/* Keeps the table at most half full. */
static int grow_names(loader *ld)
{
  if (2 * (ld->section_count + 1) <= ld->name_cap)
    return 1;
  int cap = ld->name_cap ? 2 * ld->name_cap : 64;
  int *slots = malloc((size_t)cap * sizeof *slots);
  if (!slots)
    return 0;
  free(ld->name_slots);
  ld->name_slots = slots;
  ld->name_cap = cap;
  memset(slots, 0xff, (size_t)cap * sizeof *slots);
  for (int i = 0; i < ld->section_count; i++)
    *name_slot(ld, ld->sections[i].name) = i;
  return 1;
}

static int begin_section(loader *ld, const char *name)
{
  section_kind kind;
  if (!ms_ld_kind_of(name, &kind))
    return ms_ld_fail_at(ld, ld->line, name, NULL,
                   "unknown section (expected simulation, box, material, grid, small, "
                   "gravity, large.NAME, large_random.NAME, large_file.NAME, wall.NAME, "
                   "inflow.NAME, outflow.NAME or output)");
  int named = (kind >= SEC_LARGE && kind <= SEC_LARGE_FILE) || kind == SEC_WALL ||
              kind == SEC_INFLOW || kind == SEC_OUTFLOW;
  if (named && !valid_item_name(strchr(name, '.') + 1))
    return ms_ld_fail_at(ld, ld->line, name, NULL,
                   "NAME must be non-empty and use only letters, digits, '_' and '-'");
  if (!grow_names(ld))
    return ms_ld_fail_memory(ld);
  int *slot = name_slot(ld, name);
  if (*slot >= 0)
    return ms_ld_fail_at(ld, ld->line, name, NULL, "section given twice (first at line %d)",
                         ld->sections[*slot].line);
  section *grown = grow(ld->sections, &ld->section_cap, ld->section_count + 1, sizeof *grown);
  if (!grown)
    return ms_ld_fail_memory(ld);
  ld->sections = grown;
  *slot = ld->section_count;
  section *sec = &ld->sections[ld->section_count++];
  *sec = (section){.line = ld->line, .kind = kind};
  strcpy(sec->name, name);
  ld->current = ld->section_count - 1;
  return add_item(ld, sec);
}

/* `p` points just after '['. */
static int take_header(loader *ld, const char *p)
{
  const char *close = strchr(p, ']');
  if (!close)
    return ms_ld_fail_at(ld, ld->line, NULL, NULL, "unterminated section header (missing ']')");
  const char *rest = close + 1;
  while (isspace((unsigned char)*rest))
    rest++;
  if (*rest && *rest != ';' && *rest != '#')
    return ms_ld_fail_at(ld, ld->line, NULL, NULL, "unexpected text '%.*s' after the section header",
                   (int)strcspn(rest, "\r\n"), rest);
  char name[NAME_MAX_LEN];
  size_t n = (size_t)(close - p);
  if (n >= sizeof name)
    return ms_ld_fail_at(ld, ld->line, NULL, NULL, "section name too long (at most %d characters)",
                   NAME_MAX_LEN - 1);
  memcpy(name, p, n);
  name[n] = '\0';
  return begin_section(ld, ms_trim(name));
}

/* A key line needs '=' before any ':' or inline comment (inih would split at ':'). */
static int take_key_line(loader *ld, const char *p)
{
  for (const char *q = p; *q && *q != ':'; q++) {
    if (*q == '=')
      return 1;
    if (*q == ';' && q > p && isspace((unsigned char)q[-1]))
      break;
  }
  return ms_ld_fail_at(ld, ld->line, current_name(ld), NULL,
                 "syntax error: expected 'key = value' or '[section]'");
}

/* Sees every line before inih does: counts lines, rejects lines that inih would cut
 * in two, and follows section headers. Returns 0 to stop the parse. */
static int take_line(loader *ld, const char *line, int complete)
{
  if (++ld->line > MS_SCENE_MAX_LINES)
    return ms_ld_fail_at(ld, ld->line, NULL, NULL, "too many lines (at most %ld)",
                         MS_SCENE_MAX_LINES);
  if (!complete)
    return ms_ld_fail_at(ld, ld->line, NULL, NULL, "line too long (at most %d characters)",
                   ld->line_limit);
  const char *p = line;
  if (ld->line == 1 && strncmp(p, "\xEF\xBB\xBF", 3) == 0)
    p += 3;
  const char *start = p;
  while (isspace((unsigned char)*p))
    p++;
  if (*p == '\0' || *p == ';' || *p == '#')
    return 1;
  if (p > start) /* inih would glue the line onto the previous value */
    return ms_ld_fail_at(ld, ld->line, current_name(ld), NULL,
                   "indented line (lines must start at the first column)");
  if (*p == '[')
    return take_header(ld, p + 1);
  return take_key_line(ld, p);
}

char *ms_ld_read_file_line(char *buf, int size, void *stream)
{
  loader *ld = stream;
  ms_line line;
  if (ld->status != MS_OK || !ms_read_line(ld->file, buf, (size_t)size, &line))
    return NULL;
  ld->line_limit = size - 3; /* room for "\r\n" */
  ld->bytes += (long)line.len;
  if (line.has_nul)
    ms_ld_fail_at(ld, ld->line + 1, NULL, NULL, "NUL byte in the line (text after it would be lost)");
  else if (ld->bytes > MS_SCENE_MAX_BYTES) /* the file grew after it was opened */
    ms_ld_fail_at(ld, ld->line + 1, NULL, NULL, "scene longer than %ld bytes", MS_SCENE_MAX_BYTES);
  return ld->status == MS_OK && take_line(ld, buf, line.complete) ? buf : NULL;
}

char *ms_ld_read_text_line(char *buf, int size, void *stream)
{
  loader *ld = stream;
  if (ld->status != MS_OK || !*ld->text)
    return NULL;
  int n = 0;
  while (n < size - 1 && ld->text[n]) {
    buf[n] = ld->text[n];
    if (buf[n++] == '\n')
      break;
  }
  buf[n] = '\0';
  ld->text += n;
  ld->line_limit = size - 3; /* room for "\r\n" */
  int complete = buf[n - 1] == '\n' || !*ld->text;
  return take_line(ld, buf, complete) ? buf : NULL;
}
