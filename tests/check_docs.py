#!/usr/bin/env python3
"""Keeps the docs from drifting away from the program:

- every key the scene schema accepts (the tables g_kind_names and g_keys of
  src/scene/schema.c) is documented in docs/scenes.md, under its section's heading
  (`[simulation]`, `[large.NAME]`, ...), as `key` in the first cell of exactly one table row;
- every option `mixsim --help` lists (-x and --xxx) is documented in docs/cli.md as `-x` or
  `--xxx ARG` in the first cell of exactly one table row, and every MIXSIM_* variable it names
  in a row of its own; a row for a key or option the program does not have is stale;
- every relative link in README.md, CONTRIBUTING.md and docs/*.md points to a file of the
  repository, and a #fragment to a heading of the linked page.

usage: check_docs.py MIXSIM ROOT    check the docs at ROOT against the program MIXSIM
       check_docs.py --self-test    show that a missing key, option or link is caught
"""
import glob
import os
import re
import subprocess
import sys
import tempfile
import unicodedata

SCHEMA = 'src/scene/schema.c'
SCENES = 'docs/scenes.md'
CLI = 'docs/cli.md'
MIN_SECTIONS = 10  # the schema's section kinds today; fewer means the parse went wrong
MIN_OPTIONS = 30   # the long options --help lists today


class Broken(Exception):
    """Something this script needs could not be found: fail loudly, never pass quietly."""


# --- the scene schema --------------------------------------------------------------------

def c_strings(text):
    return re.findall(r'"((?:[^"\\]|\\.)*)"', text)


def schema_keys(source, min_sections=MIN_SECTIONS):
    """{section name as in the INI, 'large.' for [large.NAME]: [keys]} from schema.c."""
    names = re.search(r'g_kind_names\s*\[[^\]]*\]\s*=\s*\{(.*?)\};', source, re.S)
    table = re.search(r'g_keys\s*\[[^\]]*\]\s*\[[^\]]*\]\s*=\s*\{(.*?)\n\};', source, re.S)
    if not names:
        raise Broken(f'{SCHEMA}: no table g_kind_names (the section names) found')
    if not table:
        raise Broken(f'{SCHEMA}: no table g_keys (the keys of each section) found')
    kinds = c_strings(names.group(1))
    if len(kinds) < min_sections:
        raise Broken(f'{SCHEMA}: g_kind_names has {len(kinds)} sections, expected at least '
                     f'{min_sections}: the parse went wrong')
    by_enum = {'SEC_' + k.rstrip('.').upper(): k for k in kinds}
    keys = {}
    for enum, body in re.findall(r'\[\s*(SEC_\w+)\s*\]\s*=\s*\{([^}]*)\}', table.group(1)):
        if enum not in by_enum:
            raise Broken(f'{SCHEMA}: g_keys has {enum}, which no name of g_kind_names matches')
        keys[by_enum[enum]] = c_strings(body)
    missing = [k for k in kinds if not keys.get(k)]
    if missing:
        raise Broken(f'{SCHEMA}: g_keys has no keys for ' + ', '.join(missing))
    return keys


# --- markdown ------------------------------------------------------------------------------

FENCE = re.compile(r'^\s*(```|~~~)')
HEADING = re.compile(r'^(#{1,6})\s+(.*?)\s*#*\s*$')


def prose_lines(text):
    """(line number, line) outside fenced code blocks."""
    inside = False
    for n, line in enumerate(text.split('\n'), 1):
        if FENCE.match(line):
            inside = not inside
            continue
        if not inside:
            yield n, line


def headings(text):
    return [(n, len(m.group(1)), m.group(2)) for n, line in prose_lines(text)
            for m in [HEADING.match(line)] if m]


def slug(title):
    """The anchor GitHub gives a heading: its text, lower case, punctuation dropped."""
    title = re.sub(r'\[([^\]]*)\]\([^)]*\)', r'\1', title).replace('`', '').lower()
    kept = ''.join(c for c in title if c.isalnum() or c in ' -_' or
                   unicodedata.category(c).startswith('M'))
    return kept.replace(' ', '-')


def anchors(text):
    seen, out = {}, set()
    for _, _, title in headings(text):
        s = slug(title)
        out.add(s if s not in seen else f'{s}-{seen[s]}')
        seen[s] = seen.get(s, 0) + 1
    return out


def first_cells(lines):
    """(line number, [backticked spans]) of each table row's first cell."""
    for n, line in lines:
        if not line.lstrip().startswith('|'):
            continue
        cells = line.strip().strip('|').split('|')
        if not cells or set(cells[0].strip()) <= set('-: '):
            continue
        yield n, re.findall(r'`([^`]+)`', cells[0])


def section_part(text, title):
    """The lines under the heading whose text is title, up to the next heading of its level
    or above; None when there is no such heading."""
    lines = list(prose_lines(text))
    for i, (n, line) in enumerate(lines):
        m = HEADING.match(line)
        if m and m.group(2) == title:
            level = len(m.group(1))
            part = []
            for n2, line2 in lines[i + 1:]:
                m2 = HEADING.match(line2)
                if m2 and len(m2.group(1)) <= level:
                    break
                part.append((n2, line2))
            return part
    return None


# --- the checks ------------------------------------------------------------------------------

def check_keys(keys, scenes_text, problems):
    for sec, wanted in keys.items():
        name = f'[{sec}NAME]' if sec.endswith('.') else f'[{sec}]'
        title = f'`{name}`'
        part = section_part(scenes_text, title)
        if part is None:
            problems.append(f'{SCENES}: no heading {title} for the section\'s keys')
            continue
        rows = {}
        for n, spans in first_cells(part):
            for span in spans:
                rows.setdefault(span, []).append(n)
        for key in wanted:
            where = rows.get(key, [])
            if not where:
                problems.append(f'{SCENES}: {name} {key}: not documented under {title} '
                                f'(a table row starting with `{key}`)')
            elif len(where) > 1:
                problems.append(f'{SCENES}:{where[1]}: {name} {key} documented twice (first at '
                                f'line {where[0]})')
        for span, where in rows.items():
            if span not in wanted:
                problems.append(f'{SCENES}:{where[0]}: `{span}` under {title} is not a key of '
                                f'{name} (the schema has: {", ".join(wanted)})')


OPTION_LINE = re.compile(r'^ {1,8}(-[A-Za-z0-9])?(?:, )?(--[a-z0-9][a-z0-9-]*)?(?=[ =,]|$)')


def help_options(help_text, min_options=MIN_OPTIONS):
    """The options --help lists at the start of its lines, and the MIXSIM_* it names."""
    options = []
    for line in help_text.split('\n'):
        m = OPTION_LINE.match(line)
        if m:
            options += [o for o in m.groups() if o]
    if sum(o.startswith('--') for o in options) < min_options:
        raise Broken(f'mixsim --help: found {len(options)} options, expected at least '
                     f'{min_options} long ones: the parse went wrong')
    return options, sorted(set(re.findall(r'\bMIXSIM_[A-Z0-9_]+', help_text)))


def check_options(options, variables, cli_text, problems):
    rows = {}
    for n, spans in first_cells(prose_lines(cli_text)):
        for span in spans:
            word = span.split()[0]
            if word.startswith('-') or word.startswith('MIXSIM_'):
                rows.setdefault(word, []).append(n)
    for opt in options + variables:
        where = rows.get(opt, [])
        if not where:
            form = f'`{opt}`' if opt.startswith('MIXSIM_') or len(opt) == 2 else f'`{opt} ARG`'
            problems.append(f'{CLI}: {opt} (in mixsim --help) is not documented (a table row '
                            f'whose first cell has {form})')
        elif len(where) > 1:
            problems.append(f'{CLI}:{where[1]}: {opt} documented twice (first at line '
                            f'{where[0]})')
    for word, where in rows.items():
        if word.startswith('-') and word not in options:
            problems.append(f'{CLI}:{where[0]}: `{word}` is not an option of mixsim --help')


LINK = re.compile(r'!?\[(?:[^\]\\]|\\.)*\]\(\s*<?([^)\s>]+)>?(?:\s+"[^"]*")?\s*\)')


def markdown_files(root):
    names = ['README.md', 'CONTRIBUTING.md'] + sorted(
        os.path.relpath(p, root) for p in glob.glob(os.path.join(root, 'docs', '*.md')))
    return [n for n in names if os.path.isfile(os.path.join(root, n))]


def check_links(root, problems):
    real_root = os.path.realpath(root)
    for rel in markdown_files(root):
        text = open(os.path.join(root, rel), encoding='utf-8').read()
        for n, line in prose_lines(text):
            for m in LINK.finditer(re.sub(r'`[^`]*`', '', line)):
                target = m.group(1)
                if re.match(r'^[a-zA-Z][a-zA-Z0-9+.-]*:', target):
                    continue  # http:, https:, mailto:
                path, _, fragment = target.partition('#')
                where = f'{rel}:{n}: link to {target}'
                full = os.path.realpath(os.path.join(root, os.path.dirname(rel), path)) \
                    if path else os.path.realpath(os.path.join(root, rel))
                if os.path.commonpath([full, real_root]) != real_root:
                    problems.append(f'{where}: outside the repository')
                elif not os.path.exists(full):
                    problems.append(f'{where}: no such file')
                elif fragment and full.endswith('.md') and os.path.isfile(full):
                    if fragment not in anchors(open(full, encoding='utf-8').read()):
                        problems.append(f'{where}: no heading #{fragment} there')


def check(root, help_text, min_sections=MIN_SECTIONS, min_options=MIN_OPTIONS):
    problems = []

    def read(rel):
        path = os.path.join(root, rel)
        if not os.path.isfile(path):
            raise Broken(f'{rel}: missing')
        return open(path, encoding='utf-8').read()

    check_keys(schema_keys(read(SCHEMA), min_sections), read(SCENES), problems)
    options, variables = help_options(help_text, min_options)
    check_options(options, variables, read(CLI), problems)
    check_links(root, problems)
    return problems


# --- self-test -------------------------------------------------------------------------------

GOOD = {
    SCHEMA: '''static const char *const g_kind_names[SEC_KIND_COUNT] = {
    "simulation", "box", "large.",
};
static const char *const g_keys[SEC_KIND_COUNT][MAX_KEYS + 1] = {
    [SEC_SIMULATION] = {"dt", "steps"},
    [SEC_BOX] = {"min", "max"},
    [SEC_LARGE] = {"position", "radius"},
};
''',
    SCENES: '''# Scenes

## Sections

### `[simulation]`

| key | meaning |
|---|---|
| `dt` | the step |
| `steps` | how many |

### `[box]`

| key | meaning |
|---|---|
| `min` | a corner; `max` named in another cell does not count |
| `max` | the other |

### `[large.NAME]`

| key | meaning |
|---|---|
| `position` | where |
| `radius` | how big |

## See also

[options](cli.md#options), [figure](fig.png)
''',
    CLI: '''# CLI

## Options

| option | what |
|---|---|
| `-n`, `--steps N` | iterations |
| `--trace FILE.json` | a trace |
| `-h`, `--help` | help |

| variable | what |
|---|---|
| `MIXSIM_DEVICE` | as --device |
''',
    'docs/fig.png': '',
    'README.md': '[scenes](docs/scenes.md#simulation) and [cli](docs/cli.md) and '
                 '[web](https://example.org/x)\n\n```\n[not a link](nowhere.md)\n```\n',
}
HELP = '''usage: mixsim [options] SCENE.ini
  -n, --steps N            iterations
      --trace FILE.json    write a trace (--not-this-one)
  -h, --help               this text
Environment: MIXSIM_DEVICE (as --device).
'''


def run_planted(name, files, help_text, expect):
    """Writes a tree (GOOD changed by files), checks it and compares the problems' starts."""
    with tempfile.TemporaryDirectory() as root:
        for rel, text in dict(GOOD, **files).items():
            os.makedirs(os.path.dirname(os.path.join(root, rel)) or root, exist_ok=True)
            with open(os.path.join(root, rel), 'w', encoding='utf-8') as f:
                f.write(text)
        try:
            problems = check(root, help_text, min_sections=3, min_options=2)
        except Broken as e:
            problems = [f'BROKEN {e}']
    caught = all(any(e in p for p in problems) for e in expect) and (expect or not problems)
    if not caught or len(problems) != len(expect):
        print(f'self-test failed: {name}: expected {expect or "no problem"}, got:',
              *problems, sep='\n  ')
        return 1
    return 0


def self_test():
    scenes, cli, readme = GOOD[SCENES], GOOD[CLI], GOOD['README.md']
    cases = [
        ('the good tree', {}, HELP, []),
        ('a key not documented', {SCENES: scenes.replace('| `max` | the other |\n', '')}, HELP,
         ['[box] max: not documented']),
        ('a key documented twice', {SCENES: scenes.replace('| `steps` | how many |',
                                                           '| `steps` | how many |\n| `dt` | again |')},
         HELP, ['[simulation] dt documented twice']),
        ('a stale key', {SCENES: scenes.replace('| `radius` | how big |',
                                                '| `radius` | how big |\n| `mass` | gone |')},
         HELP, ['`mass` under `[large.NAME]` is not a key']),
        ('a section without its heading', {SCENES: scenes.replace('### `[box]`', '### box')},
         HELP, ['no heading `[box]`']),
        ('an option not documented', {}, HELP + '  -z, --planted K     planted\n',
         ['-z (in mixsim --help)', '--planted (in mixsim --help)']),
        ('an option documented twice', {CLI: cli.replace('| `-h`, `--help` | help |',
                                                         '| `-h`, `--help` | help |\n| `--trace F` | again |')},
         HELP, ['--trace documented twice']),
        ('a stale option', {CLI: cli.replace('| `-h`, `--help` | help |',
                                             '| `-h`, `--help` | help |\n| `--gone` | removed |')},
         HELP, ['`--gone` is not an option']),
        ('a variable not documented', {}, HELP + 'MIXSIM_PLANTED too\n',
         ['MIXSIM_PLANTED (in mixsim --help)']),
        ('a broken link', {'README.md': readme + '[gone](docs/gone.md)\n'}, HELP,
         ['README.md:6: link to docs/gone.md: no such file']),
        ('a broken anchor', {'README.md': readme + '[gone](docs/cli.md#nowhere)\n'}, HELP,
         ['link to docs/cli.md#nowhere: no heading']),
        ('a link out of the repository', {'README.md': readme + '[out](../x.md)\n'}, HELP,
         ['link to ../x.md: outside the repository']),
        ('no g_keys table', {SCHEMA: GOOD[SCHEMA].replace('g_keys', 'g_other')}, HELP,
         ['BROKEN src/scene/schema.c: no table g_keys']),
        ('too few sections', {SCHEMA: GOOD[SCHEMA].replace('"large.",', '').replace(
            '[SEC_LARGE] = {"position", "radius"},', '')}, HELP,
         ['BROKEN src/scene/schema.c: g_kind_names has 2 sections']),
        ('--help not parsed', {}, 'usage: mixsim\n', ['BROKEN mixsim --help: found 0 options']),
    ]
    failed = sum(run_planted(*case) for case in cases)
    if failed:
        return 1
    print(f'self-test: the good tree passes and the {len(cases) - 1} planted problems were caught')
    return 0


def main():
    if sys.argv[1:] == ['--self-test']:
        return self_test()
    if len(sys.argv) != 3:
        print(__doc__)
        return 2
    exe, root = sys.argv[1:]
    try:
        run = subprocess.run([exe, '--help'], capture_output=True, text=True, timeout=60)
        if run.returncode != 0:
            raise Broken(f'{exe} --help exited {run.returncode}: {run.stderr.strip()}')
        problems = check(root, run.stdout + run.stderr)
    except (Broken, OSError, subprocess.SubprocessError) as e:
        print(f'check_docs.py: cannot check the docs: {e}')
        return 1
    for p in problems:
        print(p)
    if problems:
        print(f'{len(problems)} docs problem(s): every scene key belongs in {SCENES}, every '
              f'option in {CLI}, once; links must point to files and headings that exist')
        return 1
    print('docs: every scene key and option is documented once, and every link resolves')
    return 0


if __name__ == '__main__':
    sys.exit(main())
