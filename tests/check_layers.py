#!/usr/bin/env python3
"""Keeps the layout true (docs/architecture.md): every #include "..." in src/, include/mixsim/
and kernels/shared/ must point down the layers, never up or sideways:

    app -> preview -> io | domains -> collision | gravity -> scene | cl -> core
    (kernels/shared: any)

A folder may include its own headers and those of any lower layer; collision and gravity do
not include each other, nor do scene and cl. Each public header in include/mixsim/ belongs to
the layer that implements it. Inside a layer folder with sub-folders (SUBLAYER), a sub-folder
includes only sub-folders of a lower rank, never a sibling nor the folder's top level, and has
a README.md. No include cycles in src/: a module is a .c file and its .h (a lone .h is one
too), and no chain of includes may lead from a module back to itself. Also checked: every
source file opens with a comment saying what it is for, and no .c file is longer than
MAX_C_LINES.

usage: check_layers.py ROOT            check the tree at ROOT
       check_layers.py --self-test     show that a violation is caught
"""
import collections
import os
import re
import sys
import tempfile

LAYER = {'core': 0, 'cl': 1, 'scene': 1, 'collision': 2, 'gravity': 2, 'io': 3, 'domains': 3,
         'preview': 4,
         'app': 5}
PUBLIC = {'mixsim/status.h': 'core', 'mixsim/scene.h': 'scene', 'mixsim/sim.h': 'collision',
          'mixsim/gravity.h': 'gravity', 'mixsim/checkpoint.h': 'io', 'mixsim/mixsim.h': 'app'}
# Sub-folders of a layer folder and their ranks ('' is the folder's top level): a file may
# include its own sub-folder and those of a lower rank; equal ranks are siblings. Listed
# sub-folders that do not exist yet are no problem.
SUBLAYER = {'collision': {'': 4, 'device_only': 3, 'device': 2, 'worker': 2, 'exchange': 1,
                          'base': 0}}
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


def sub_name(folder, sub):
    return f'{folder}/{sub}/' if sub else f'the top level of {folder}/'


def check_sub(where, folder, sub, target_sub, problems):
    """An include from sub-folder `sub` of `folder` into its sub-folder `target_sub`."""
    ranks = SUBLAYER[folder]
    if sub == target_sub or sub not in ranks or target_sub not in ranks:
        return  # its own sub-folder; an unknown one is reported once, by check_subfolders
    mine, theirs = ranks[sub], ranks[target_sub]
    if target_sub == '':
        problems.append(f'{where}: {sub_name(folder, sub)} must not include headers of '
                        f'{sub_name(folder, "")} (they sit above every sub-folder)')
    elif theirs >= mine:
        kind = 'a higher' if theirs > mine else 'a sibling'
        problems.append(f'{where}: {sub_name(folder, sub)} (rank {mine}) must not include {kind} '
                        f'sub-folder, {sub_name(folder, target_sub)} (rank {theirs})')


def check_file(root, rel, problems):
    text = open(os.path.join(root, rel), encoding='utf-8').read()
    owner = owner_of(rel)
    if not text.startswith('/*') and not rel.endswith('meson.build'):
        problems.append(f'{rel}:1: does not open with a comment saying what it is for')
    if rel.endswith('.c') and text.count('\n') > MAX_C_LINES:
        problems.append(f'{rel}: {text.count(chr(10))} lines (at most {MAX_C_LINES}): split it')
    for m in INCLUDE.finditer(text):
        line = text.count('\n', 0, m.start(1)) + 1
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
            parts, tparts = rel.split('/'), target.split('/')
            if (folder == owner and owner in SUBLAYER and parts[0] == 'src'
                    and tparts[0] == folder):
                check_sub(where, folder, parts[2] if len(parts) > 3 else '',
                          tparts[1] if len(tparts) > 2 else '', problems)
        elif LAYER[folder] >= LAYER[owner]:
            kind = 'a higher' if LAYER[folder] > LAYER[owner] else 'a sibling'
            problems.append(f'{where}: {owner}/ (layer {LAYER[owner]}) must not include {kind} '
                            f'layer, {folder}/ (layer {LAYER[folder]})')


def check_subfolders(root, problems):
    """Each sub-folder of a folder in SUBLAYER is a known one and has a README.md."""
    for folder, ranks in sorted(SUBLAYER.items()):
        top = os.path.join(root, 'src', folder)
        if not os.path.isdir(top):
            continue
        known = ', '.join(s for s in sorted(ranks, key=lambda s: (ranks[s], s)) if s)
        for name in sorted(os.listdir(top)):
            if name.startswith('.') or not os.path.isdir(os.path.join(top, name)):
                continue
            if name not in ranks:
                problems.append(f'src/{folder}/{name}/: not a known sub-folder of {folder}/ '
                                f'({known}; SUBLAYER in tests/check_layers.py)')
            elif not os.path.isfile(os.path.join(top, name, 'README.md')):
                problems.append(f'src/{folder}/{name}/: no README.md saying what lives there')


# ---- include cycles ---------------------------------------------------------------------

def include_graph(root):
    """The modules of src/ (a .c and its .h: the path under src/ without the extension) and
    their includes: edges[a][b] lists the 'file:line' of each include of b's header in a."""
    files = collections.defaultdict(list)
    for dirpath, _, names in os.walk(os.path.join(root, 'src')):
        for name in names:
            if name.endswith(('.c', '.h')):
                rel = os.path.relpath(os.path.join(dirpath, name), os.path.join(root, 'src'))
                files[rel.replace(os.sep, '/')[:-2]].append(name[-2:])
    edges = {module: collections.defaultdict(list) for module in files}
    for module in sorted(files):
        for ext in sorted(files[module]):  # .c before .h
            rel = f'src/{module}{ext}'
            text = open(os.path.join(root, rel), encoding='utf-8').read()
            for m in INCLUDE.finditer(text):
                target = m.group(1)
                if target.split('/')[0] in ('mixsim', 'shared') or not target.endswith('.h'):
                    continue
                other = target[:-2]
                if other in files and '.h' in files[other] and other != module:
                    line = text.count('\n', 0, m.start(1)) + 1
                    edges[module][other].append(f'{rel}:{line}')
    return edges


def strong_components(edges):
    """Tarjan's strongly connected components, without recursion; modules and their
    successors are taken in sorted order, so the result is the same on every run."""
    index, low, on_stack, stack, found = {}, {}, set(), [], []
    for start in sorted(edges):
        if start in index:
            continue
        index[start] = low[start] = len(index)
        stack.append(start)
        on_stack.add(start)
        work = [(start, iter(sorted(edges[start])))]
        while work:
            v, successors = work[-1]
            for w in successors:
                if w not in index:
                    index[w] = low[w] = len(index)
                    stack.append(w)
                    on_stack.add(w)
                    work.append((w, iter(sorted(edges[w]))))
                    break
                if w in on_stack:
                    low[v] = min(low[v], index[w])
            else:
                work.pop()
                if work:
                    u = work[-1][0]
                    low[u] = min(low[u], low[v])
                if low[v] == index[v]:
                    component = []
                    while True:
                        w = stack.pop()
                        on_stack.discard(w)
                        component.append(w)
                        if w == v:
                            break
                    found.append(sorted(component))
    return sorted(found)


def shortest_cycle(edges, component):
    """A shortest cycle through the component's first module, staying inside it (breadth
    first, successors in sorted order): the modules in order, the first repeated last."""
    inside, start = set(component), component[0]
    parent, queue = {start: None}, collections.deque([start])
    while queue:
        v = queue.popleft()
        for w in sorted(edges[v]):
            if w == start:
                path = [v]
                while parent[path[-1]] is not None:
                    path.append(parent[path[-1]])
                return path[::-1] + [start]
            if w in inside and w not in parent:
                parent[w] = v
                queue.append(w)
    raise AssertionError('a strong component without a cycle')


def check_cycles(root, problems):
    edges = include_graph(root)
    for component in strong_components(edges):
        if len(component) < 2:
            continue
        path = shortest_cycle(edges, component)
        lines = [f'include cycle among {len(component)} modules (a module is a .c and its .h): '
                 f'{", ".join(component)}; one cycle, include by include (break one):']
        for a, b in zip(path, path[1:]):
            lines.append(f'    {", ".join(edges[a][b])}: #include "{b}.h" ({a} -> {b})')
        problems.append('\n'.join(lines))


def check(root):
    problems = []
    for top in ('src', 'include/mixsim', 'kernels/shared'):
        for dirpath, dirs, files in os.walk(os.path.join(root, top)):
            dirs.sort()
            for name in sorted(files):
                if name.endswith(('.c', '.h')):
                    rel = os.path.relpath(os.path.join(dirpath, name), root).replace(os.sep, '/')
                    if owner_of(rel) is None:
                        problems.append(f'{rel}: not in a layer folder ({", ".join(LAYER)})')
                    else:
                        check_file(root, rel, problems)
    check_subfolders(root, problems)
    check_cycles(root, problems)
    return problems


def self_test():
    """A tree with planted violations must fail once for each, and on nothing else."""
    with tempfile.TemporaryDirectory() as root:
        files = {
            # a .c including its own .h is one module, not a cycle
            'src/core/ok.c': '/* fine */\n#include "mixsim/status.h"\n#include "core/ok.h"\n',
            'src/core/ok.h': '/* fine */\n',
            'src/cl/up.c': '/* up */\n#include "collision/sim_internal.h"\n',
            'src/gravity/side.c': '/* sideways */\n#include "collision/trace.h"\n',
            'src/io/bare.c': '/* bare */\n\n#include "report.h"\n',
            'src/app/fine.c': '/* down */\n#include "preview/preview.h"\n#include "shared/grid.h"\n',
            # a cycle of three modules: cyc_a -> cyc_b -> cyc_c -> cyc_a
            'src/core/cyc_a.c': '/* a */\n#include "core/cyc_a.h"\n#include "core/cyc_b.h"\n',
            'src/core/cyc_a.h': '/* a */\n',
            'src/core/cyc_b.h': '/* b */\n#include "core/cyc_c.h"\n',
            'src/core/cyc_c.c': '/* c */\n#include "core/ok.h"\n#include "core/cyc_a.h"\n',
            'src/core/cyc_c.h': '/* c */\n#include "core/ok.h"\n',
            # collision/: its top level includes any sub-folder, never the reverse; a
            # sub-folder includes lower ranks only (base < exchange < device, worker)
            'src/collision/sim_internal.h': '/* top */\n#include "collision/worker/pool.h"\n',
            'src/collision/sim.c': '/* top */\n#include "collision/sim_internal.h"\n'
                                   '#include "collision/device/queue.h"\n',
            'src/collision/worker/README.md': 'the worker\n',
            'src/collision/worker/pool.h': '/* pool */\n#include "collision/base/types.h"\n',
            'src/collision/worker/pool.c': '/* pool */\n#include "collision/device/queue.h"\n'
                                           '#include "collision/trace.h"\n'
                                           '#include "collision/worker/pool.h"\n'
                                           '#include "collision/exchange/zone.h"\n',
            'src/collision/device/README.md': 'the device\n',
            'src/collision/device/queue.h': '/* queue */\n#include "collision/exchange/zone.h"\n',
            'src/collision/exchange/zone.h': '/* zone */\n',
            'src/collision/base/README.md': 'base\n',
            'src/collision/base/types.h': '/* types */\n#include "mixsim/sim.h"\n'
                                          '#include "collision/exchange/zone.h"\n',
            'src/collision/misc/extra.c': '/* extra */\n',
        }
        for rel, text in files.items():
            os.makedirs(os.path.dirname(os.path.join(root, rel)), exist_ok=True)
            with open(os.path.join(root, rel), 'w') as f:
                f.write(text)
        problems = check(root)
        expected = [  # where each problem starts, and what it must say
            ('src/cl/up.c:2: ', ['a higher layer']),
            ('src/gravity/side.c:2: ', ['a sibling layer']),
            ('src/io/bare.c:3: ', ['name headers by folder']),
            ('src/collision/worker/pool.c:2: ', ['a sibling sub-folder, collision/device/']),
            ('src/collision/worker/pool.c:3: ', ['must not include headers of the top level']),
            ('src/collision/base/types.h:3: ', ['a higher sub-folder, collision/exchange/']),
            ('src/collision/misc/: ', ['not a known sub-folder of collision/']),
            ('src/collision/exchange/: ', ['no README.md']),
            ('include cycle among 3 modules', [
                ': core/cyc_a, core/cyc_b, core/cyc_c;',
                '\n    src/core/cyc_a.c:3: #include "core/cyc_b.h" (core/cyc_a -> core/cyc_b)',
                '\n    src/core/cyc_b.h:2: #include "core/cyc_c.h" (core/cyc_b -> core/cyc_c)',
                '\n    src/core/cyc_c.c:3: #include "core/cyc_a.h" (core/cyc_c -> core/cyc_a)']),
        ]
        unmatched, missed = list(problems), []
        for start, parts in expected:
            hits = [p for p in unmatched if p.startswith(start) and all(s in p for s in parts)]
            if len(hits) == 1:
                unmatched.remove(hits[0])
            else:
                missed.append(start + ' '.join(parts))
        if missed or unmatched:
            print('self-test failed')
            for m in missed:
                print('  not caught:', m)
            for p in unmatched:
                print('  caught by mistake:', p)
            return 1
    print(f'self-test: the {len(expected)} planted violations were caught (among them a cycle '
          'of three modules), and nothing else')
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
    print('layers: every include points down, and no include cycle')
    return 0


if __name__ == '__main__':
    sys.exit(main())
