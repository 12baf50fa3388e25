#!/usr/bin/env python3
"""Keeps the layout true (docs/architecture.md): every #include "..." in src/, include/mixsim/
and kernels/shared/ must point down the layers, never up or sideways:

    app -> preview -> io -> collision | gravity -> scene | cl -> core      (kernels/shared: any)

A folder may include its own headers and those of any lower layer; collision and gravity do
not include each other, nor do scene and cl. Each public header in include/mixsim/ belongs to
the layer that implements it. Also checked: every source file opens with a comment saying
what it is for, and no .c file is longer than MAX_C_LINES.

usage: check_layers.py ROOT            check the tree at ROOT
       check_layers.py --self-test     show that a violation is caught
"""
import os
import re
import sys
import tempfile

LAYER = {'core': 0, 'cl': 1, 'scene': 1, 'collision': 2, 'gravity': 2, 'io': 3, 'preview': 4,
         'app': 5}
PUBLIC = {'mixsim/status.h': 'core', 'mixsim/scene.h': 'scene', 'mixsim/sim.h': 'collision',
          'mixsim/gravity.h': 'gravity', 'mixsim/checkpoint.h': 'io', 'mixsim/mixsim.h': 'app'}
MAX_C_LINES = 750
INCLUDE = re.compile(r'^\s*#\s*include\s+"([^"]+)"', re.M)


def folder_of(target):
    """The layer folder a quoted include names, 'shared' for kernels/shared, else None."""
    if target in PUBLIC:
        return PUBLIC[target]
    head = target.split('/')[0]
    if head == 'shared':
        return 'shared'
    return head if head in LAYER and '/' in target else None


def owner_of(rel):
    """The layer folder a file of the tree belongs to."""
    parts = rel.split('/')
    if parts[0] == 'src':
        return parts[1] if len(parts) > 2 else None
    if parts[0] == 'include':
        return PUBLIC.get('/'.join(parts[1:]))
    if parts[:2] == ['kernels', 'shared']:
        return 'shared'
    return None


def check_file(root, rel, problems):
    text = open(os.path.join(root, rel), encoding='utf-8').read()
    owner = owner_of(rel)
    if not text.startswith('/*') and not rel.endswith('meson.build'):
        problems.append(f'{rel}:1: does not open with a comment saying what it is for')
    if rel.endswith('.c') and text.count('\n') > MAX_C_LINES:
        problems.append(f'{rel}: {text.count(chr(10))} lines (at most {MAX_C_LINES}): split it')
    for m in INCLUDE.finditer(text):
        line = text.count('\n', 0, m.start()) + 1
        target = m.group(1)
        folder = folder_of(target)
        where = f'{rel}:{line}: #include "{target}"'
        if owner == 'shared' and '/' not in target:
            folder = 'shared'  # the OpenCL compiler resolves these beside the including file
        if folder is None:
            problems.append(f'{where}: name headers by folder ("core/rng.h", "mixsim/sim.h")')
        elif owner == 'shared':
            if folder != 'shared':
                problems.append(f'{where}: kernels/shared/ compiles as OpenCL C and includes only '
                                'its own headers')
        elif folder == 'shared' or folder == owner:
            continue
        elif LAYER[folder] >= LAYER[owner]:
            kind = 'a higher' if LAYER[folder] > LAYER[owner] else 'a sibling'
            problems.append(f'{where}: {owner}/ (layer {LAYER[owner]}) must not include {kind} '
                            f'layer, {folder}/ (layer {LAYER[folder]})')


def check(root):
    problems = []
    for top in ('src', 'include/mixsim', 'kernels/shared'):
        for dirpath, _, files in os.walk(os.path.join(root, top)):
            for name in sorted(files):
                if name.endswith(('.c', '.h')):
                    rel = os.path.relpath(os.path.join(dirpath, name), root)
                    if owner_of(rel) is None:
                        problems.append(f'{rel}: not in a layer folder ({", ".join(LAYER)})')
                    else:
                        check_file(root, rel, problems)
    return problems


def self_test():
    """A tree with one upward, one sideways and one unqualified include must fail three times."""
    with tempfile.TemporaryDirectory() as root:
        files = {
            'src/core/ok.c': '/* fine */\n#include "mixsim/status.h"\n#include "core/ok.h"\n',
            'src/core/ok.h': '/* fine */\n',
            'src/cl/up.c': '/* up */\n#include "collision/sim_internal.h"\n',
            'src/gravity/side.c': '/* sideways */\n#include "collision/trace.h"\n',
            'src/io/bare.c': '/* bare */\n#include "report.h"\n',
            'src/app/fine.c': '/* down */\n#include "preview/preview.h"\n#include "shared/grid.h"\n',
        }
        for rel, text in files.items():
            os.makedirs(os.path.dirname(os.path.join(root, rel)), exist_ok=True)
            with open(os.path.join(root, rel), 'w') as f:
                f.write(text)
        problems = check(root)
        expected = ['src/cl/up.c:2', 'src/gravity/side.c:2', 'src/io/bare.c:2']
        found = sorted(p.split(': ')[0] for p in problems)
        if found != expected:
            print('self-test failed: expected problems at', expected, 'got:', *problems, sep='\n  ')
            return 1
    print('self-test: the three planted violations were caught')
    return 0


def main():
    if sys.argv[1:] == ['--self-test']:
        return self_test()
    if len(sys.argv) != 2:
        print(__doc__)
        return 2
    problems = check(sys.argv[1])
    for p in problems:
        print(p)
    if problems:
        print(f'{len(problems)} layering problem(s); see docs/architecture.md')
        return 1
    print('layers: every include points down')
    return 0


if __name__ == '__main__':
    sys.exit(main())
