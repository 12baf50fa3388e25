#!/usr/bin/env bash
# tools/deps.sh against stand-ins for dpkg-query and apt-get: each job installs what it
# needs and no more, never lets apt remove a package (--no-remove), keeps ParaView's
# python3-paraview rather than installing the python3-vtk9 that conflicts with it, asks
# for nothing when nothing is missing, and refuses an unknown job.
# usage: deps.sh SOURCE_ROOT [filter]
set -u
root=$1
filter=${2:-}
. "$root/tests/lib.sh"

# The stand-ins: dpkg-query reports the packages listed in $tmp/installed; apt-get and sudo
# record their arguments.
mkdir -p "$tmp/bin"
cat >"$tmp/bin/dpkg-query" <<'EOF'
#!/bin/sh
pkg=$(eval echo "\${$#}")
grep -qx "$pkg" "$STUB_DIR/installed" && printf 'install ok installed'
exit 0
EOF
cat >"$tmp/bin/apt-get" <<'EOF'
#!/bin/sh
echo "$*" >>"$STUB_DIR/apt"
EOF
printf '#!/bin/sh\nexec "$@"\n' >"$tmp/bin/sudo"
chmod +x "$tmp/bin/"*
deps() { # job; installed packages on stdin
  cat >"$tmp/installed"
  rm -f "$tmp/apt"
  STUB_DIR=$tmp PATH="$tmp/bin:$PATH" bash "$root/tools/deps.sh" "$@" >"$tmp/out" 2>&1
}
installs() { grep "^install " "$tmp/apt" | tr ' ' '\n' | grep -qx "$1"; }

test_run_job_installs_the_build_not_the_peers() {
  deps run </dev/null || return 1
  installs meson && installs pocl-opencl-icd && installs libsdl2-dev && ! installs lammps &&
    ! installs python3-vtk9 && ! installs clang
}

test_test_job_installs_peers_and_readers() {
  deps test </dev/null || return 1
  installs lammps && installs python3-vtk9 && installs python3-matplotlib && installs meson &&
    ! installs clang
}

test_no_package_removed() {
  deps dev </dev/null || return 1
  installs clang && grep -q -- "--no-remove" "$tmp/apt"
}

test_paraview_kept() {
  echo python3-paraview | deps test || return 1
  cat "$tmp/out"
  ! installs python3-vtk9 && installs python3-matplotlib &&
    grep -q "python3-paraview is installed, so python3-vtk9 .* is not" "$tmp/out"
}

test_nothing_missing_asks_nothing() {
  bash "$root/tools/deps.sh" --list dev >"$tmp/all" || return 1
  grep -qx clang "$tmp/all" && grep -qx meson "$tmp/all" && grep -qx lammps "$tmp/all" || return 1
  deps dev <"$tmp/all" && [ ! -e "$tmp/apt" ]
}

test_unknown_job_refused() {
  deps bogus </dev/null
  [ $? -eq 2 ] && grep -q "usage: tools/deps.sh \[--list\] \[run|test|dev\]" "$tmp/out" && [ ! -e "$tmp/apt" ]
}

check test_run_job_installs_the_build_not_the_peers
check test_test_job_installs_peers_and_readers
check test_no_package_removed
check test_paraview_kept
check test_nothing_missing_asks_nothing
check test_unknown_job_refused
finish
