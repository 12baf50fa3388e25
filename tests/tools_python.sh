#!/usr/bin/env bash
# The plotting tools find the Python that has their modules (tools/pymods.py): run by a bare
# virtual environment's python they run again under Debian's /usr/bin/python3 and draw
# (timeline.py from a --trace file, plot_diagnostics.py); where no Python has the module
# they stop naming the package to install, without a traceback.
# usage: tools_python.sh MIXSIM SOURCE_ROOT [filter]
set -u
exe=$(realpath "$1")
root=$2
filter=${3:-}
. "$root/tests/lib.sh"
need_python matplotlib

is_png() { [ "$(head -c 8 "$1" | od -An -tx1 | tr -d ' \n')" = 89504e470d0a1a0a ]; }

# A virtual environment without the system's site packages: what a user's python3 may be.
bare=$tmp/venv/bin/python
"$py" -m venv --without-pip "$tmp/venv" || { echo "cannot make a virtual environment"; exit 1; }
"$exe" -q -d cpu -n 30 --trace "$tmp/t.json" "$root/tests/scenes/tiny.ini" >/dev/null &&
  "$exe" -q -d cpu -n 20 --output "$tmp/o" --output-every 10 --diagnostics \
    "$root/tests/scenes/tiny.ini" >/dev/null || { echo "the runs failed"; exit 1; }

test_bare_venv_lacks_matplotlib() { # else the tests below prove nothing
  ! "$bare" -c "import matplotlib" 2>/dev/null
}

test_timeline_from_bare_venv() {
  "$bare" "$root/tools/timeline.py" "$tmp/t.json" --out "$tmp/t.png" && is_png "$tmp/t.png"
}

test_plot_diagnostics_from_bare_venv() {
  "$bare" "$root/tools/plot_diagnostics.py" "$tmp/o/diagnostics.csv" --out "$tmp/d.png" &&
    is_png "$tmp/d.png"
}

test_missing_module_named() {
  # matplotlib made unimportable, in every Python the tool could turn to
  mkdir -p "$tmp/nompl/matplotlib"
  echo 'raise ImportError("No module named matplotlib")' >"$tmp/nompl/matplotlib/__init__.py"
  local rc
  PYTHONPATH="$tmp/nompl" "$bare" "$root/tools/timeline.py" "$tmp/t.json" --out "$tmp/n.png" \
    >"$tmp/n.out" 2>&1
  rc=$?
  cat "$tmp/n.out"
  [ $rc -ne 0 ] && [ ! -e "$tmp/n.png" ] && ! grep -q Traceback "$tmp/n.out" &&
    grep -q "^timeline.py: the Python module matplotlib is missing for .*: install python3-matplotlib" "$tmp/n.out"
}

check test_bare_venv_lacks_matplotlib
check test_timeline_from_bare_venv
check test_plot_diagnostics_from_bare_venv
check test_missing_module_named
finish
