#!/usr/bin/env bash
# What a scene path may be: only a regular file of bounded size is read. A device that
# never ends, a folder, a FIFO nobody writes to and an over-long file each exit 2 at
# once with a message naming the path (timeout turns a hang into a failure). So do the
# other input paths: body and particle files (at their key's line) and --resume.
# usage: scene_files.sh MIXSIM SOURCE_ROOT [filter]
set -u
exe=$1
root=$2
filter=${3:-}
. "$(dirname "$0")/lib.sh"

# refused PATH WORDS: exit 2 within 20 s, stderr names the path and holds WORDS.
refused() {
  timeout -k 5 20 "$exe" -q -n 1 "$1" >"$tmp/out" 2>"$tmp/err"
  local rc=$?
  echo "    $1 -> $rc: $(head -c 300 "$tmp/err")"
  [ $rc -eq 2 ] && grep -qF -- "'$1'" "$tmp/err" && grep -qF -- "$2" "$tmp/err" &&
    ! grep -q "state hash" "$tmp/out"
}

test_device_never_read() {
  refused /dev/zero "a character device, not a regular file"
}

test_folder() {
  mkdir -p "$tmp/scene.ini"
  refused "$tmp/scene.ini" "a folder, not a regular file"
}

test_fifo_without_writer() {
  mkfifo "$tmp/fifo.ini" || return 1
  refused "$tmp/fifo.ini" "a FIFO, not a regular file"
}

test_over_long_file() {
  yes '; a comment line' | head -c 17000000 >"$tmp/long.ini"
  refused "$tmp/long.ini" "17000000 bytes, more than the 16777216 allowed"
}

test_body_file_folder_names_line() {
  mkdir -p "$tmp/bodies.csv"
  printf '[simulation]\nmode = gravity\ndt = 0.01\n[gravity]\nbodies = file\nfile = bodies.csv\nsoftening = 0.1\n' \
    >"$tmp/g.ini"
  timeout -k 5 20 "$exe" -q "$tmp/g.ini" >/dev/null 2>"$tmp/err"
  local rc=$?
  cat "$tmp/err"
  [ $rc -eq 2 ] && grep -q "g.ini:6: \[gravity\] file: cannot open '.*bodies.csv': a folder" "$tmp/err"
}

test_particle_files_folder_names_line() {
  mkdir -p "$tmp/bed.csv"
  local sec
  for sec in "[small]" "[large_file.rocks]"; do
    printf '[simulation]\ndt = 1e-4\n[box]\nmin = 0, 0\nmax = 0.3, 0.3\n[material]\nstiffness = 1e5\nrestitution = 0.5\n%s\nfile = bed.csv\n' \
      "$sec" >"$tmp/p.ini"
    timeout -k 5 20 "$exe" -q -n 1 "$tmp/p.ini" >/dev/null 2>"$tmp/err"
    local rc=$?
    cat "$tmp/err"
    [ $rc -eq 2 ] && grep -qF "p.ini:10: $sec file: cannot open '$tmp/bed.csv': a folder, not a regular file" "$tmp/err" ||
      return 1
  done
}

# --resume of a folder or a FIFO: said so, in both modes (a folder read as a "truncated
# header", a FIFO blocked).
test_resume_folder_or_fifo() {
  printf '[simulation]\nmode = gravity\ndt = 0.001\nsteps = 2\n[gravity]\nbodies = plummer\ncount = 64\nsoftening = 0.01\n' \
    >"$tmp/g.ini"
  mkdir -p "$tmp/ck.d"
  [ -p "$tmp/ck.fifo" ] || mkfifo "$tmp/ck.fifo" || return 1
  local scene path words
  for scene in "$root/tests/scenes/tiny.ini" "$tmp/g.ini"; do
    for path in "$tmp/ck.d:a folder" "$tmp/ck.fifo:a FIFO" ".:a folder"; do
      words=${path##*:}
      path=${path%:*}
      timeout -k 5 20 "$exe" -q --resume "$path" "$scene" >"$tmp/out" 2>"$tmp/err"
      local rc=$?
      echo "    --resume $path -> $rc: $(head -c 300 "$tmp/err")"
      [ $rc -eq 2 ] && grep -qF "cannot open checkpoint '$path': $words, not a regular file" "$tmp/err" &&
        ! grep -q "state hash" "$tmp/out" || return 1
    done
  done
}

check test_device_never_read
check test_folder
check test_fifo_without_writer
check test_over_long_file
check test_body_file_folder_names_line
check test_particle_files_folder_names_line
check test_resume_folder_or_fifo
finish
