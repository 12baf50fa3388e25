#!/usr/bin/env python3
"""Turns kernels/*.cl into one C string (kernels_embedded.c) at build time.

Quoted #include lines are inlined recursively, each file once, so the program carries
the shared headers with it. Every file read is listed in a depfile, so editing a
header in kernels/shared/ rebuilds the embedded source."""
import argparse
import os
import re

DEFAULT_SYMBOL = "ms_kernel_source"
INCLUDE = re.compile(r'^\s*#\s*include\s+"([^"]+)"\s*$')


def inline(path, seen, deps):
    path = os.path.normpath(path)
    if path in seen:
        return ""
    seen.add(path)
    deps.append(path)
    # #line markers keep the build log's file names and line numbers true.
    name = os.path.basename(path)
    out = ['#line 1 "%s"\n' % name]
    with open(path, encoding="utf-8") as f:
        for number, line in enumerate(f, 1):
            m = INCLUDE.match(line)
            if m:
                out.append(inline(os.path.join(os.path.dirname(path), m.group(1)), seen, deps))
                out.append('#line %d "%s"\n' % (number + 1, name))
            else:
                out.append(line)
    return "".join(out)


def c_string(text):
    lines = []
    for line in text.splitlines(keepends=True):
        esc = line.replace("\\", "\\\\").replace('"', '\\"').replace("\n", "\\n")
        lines.append('  "%s"' % esc)
    return "\n".join(lines) if lines else '  ""'


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--output", required=True)
    ap.add_argument("--depfile", required=True)
    ap.add_argument("--symbol", default=DEFAULT_SYMBOL,
                    help="name of the string (the file list is NAME_files; default %s and "
                         "ms_kernel_files)" % DEFAULT_SYMBOL)
    ap.add_argument("sources", nargs="+")
    args = ap.parse_args()

    seen, deps, parts = set(), [], []
    for src in args.sources:
        parts.append(inline(src, seen, deps))
    names = ", ".join('"%s"' % os.path.basename(s) for s in args.sources)

    with open(args.output, "w", encoding="utf-8") as out:
        out.write("/* Generated from kernels/ by tools/dev/embed_kernels.py; do not edit. */\n")
        files = "ms_kernel_files" if args.symbol == DEFAULT_SYMBOL else args.symbol + "_files"
        out.write("const char %s[] =\n%s;\n" % (args.symbol, c_string("".join(parts))))
        out.write("const char *const %s[] = {%s, 0};\n" % (files, names))
    with open(args.depfile, "w", encoding="utf-8") as dep:
        dep.write("%s: %s\n" % (args.output, " ".join(d.replace(" ", "\\ ") for d in deps)))


if __name__ == "__main__":
    main()
