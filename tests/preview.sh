#!/usr/bin/env bash
# The command line around the preview, with no display: a run without one (or with
# --headless, or checkpointed) runs headless, says so in one line with the true reason,
# and gives the usual hash; offscreen options are checked before anything runs (a
# screenshot is named *.png; a new frames folder is made, one level); a build without
# SDL2 refuses them.
# usage: preview.sh MIXSIM SOURCE_ROOT HAVE_PREVIEW(0|1)
set -u
exe=$1
root=$2
have_preview=$3
scene=$root/tests/scenes/tiny.ini
. "$(dirname "$0")/lib.sh"


test_no_display_runs_headless_and_says_so() {
  env -u DISPLAY -u WAYLAND_DISPLAY "$exe" -n 30 "$scene" >"$tmp/a" 2>"$tmp/a.err" || return 1
  "$exe" -q -n 30 "$scene" --headless >"$tmp/b" || return 1
  cat "$tmp/a.err"
  [ "$(grep -c "running headless" "$tmp/a.err")" -eq 1 ] && [ -n "$(hash_of "$tmp/a")" ] &&
    [ "$(hash_of "$tmp/a")" = "$(hash_of "$tmp/b")" ]
}

test_headless_flag_says_so() {
  DISPLAY=:0 "$exe" --headless -n 5 "$scene" >/dev/null 2>"$tmp/err" || return 1
  cat "$tmp/err"
  grep -q "running headless (--headless)" "$tmp/err"
}

exits_2() { # expected message, then arguments
  local want=$1
  shift
  "$exe" "$@" "$scene" >/dev/null 2>"$tmp/err"
  local rc=$?
  cat "$tmp/err"
  [ $rc -eq 2 ] && grep -q -- "$want" "$tmp/err"
}

test_offscreen_options_checked() {
  exits_2 "--every" --frames "$tmp" --every 0 &&
    exits_2 "--every" --frames "$tmp" --every 1.5 &&
    exits_2 "--every needs --frames" --every 3 &&
    if [ "$have_preview" = 1 ]; then
      touch "$tmp/plain" &&
        exits_2 "folder '$tmp/missing' does not exist" --frames "$tmp/missing/deeper" &&
        exits_2 "not a folder" --frames "$tmp/plain" &&
        exits_2 "folder '$tmp/missing' does not exist" --screenshot "$tmp/missing/shot.png" &&
        [ ! -e "$tmp/missing" ] &&
        chmod 500 "$tmp" && { [ "$(id -u)" -eq 0 ] || exits_2 "cannot write" --frames "$tmp"; }
    fi
  local ok=$?
  chmod 700 "$tmp"
  return $ok
}

test_without_sdl_offscreen_refused() {
  exits_2 "built without SDL2" --frames "$tmp" &&
    exits_2 "built without SDL2" --screenshot "$tmp/shot.png" && [ ! -e "$tmp/shot.png" ]
}

test_checkpointed_run_says_why_headless() {
  DISPLAY=:0 "$exe" --checkpoint "$tmp/h.ck" -n 5 "$scene" >/dev/null 2>"$tmp/err" || return 1
  cat "$tmp/err"
  grep -q "running headless (--checkpoint" "$tmp/err" && ! grep -q -- "(--headless)" "$tmp/err"
}

test_screenshot_must_be_png() {
  exits_2 '\*\.png' --screenshot "$tmp/shot.jpg" && [ ! -e "$tmp/shot.jpg" ] &&
    exits_2 '\*\.png' --screenshot "$tmp/png" || return 1
  [ "$have_preview" = 1 ] || return 0
  "$exe" -q -n 4 --screenshot "$tmp/SHOT.PNG" "$scene" >/dev/null && [ -s "$tmp/SHOT.PNG" ]
}

test_frames_folder_is_made() {
  "$exe" -q -n 8 --frames "$tmp/new" "$scene" >/dev/null || return 1
  [ -d "$tmp/new" ] && [ "$(stat -c %a "$tmp/new")" = 755 ] && ls "$tmp/new" &&
    [ -s "$tmp/new/frame_000002.png" ] && [ ! -e "$tmp/new/frame_000003.png" ]
}

test_stale_frame_temp_files_removed() {
  mkdir -p "$tmp/fr"
  touch -d '1 hour ago' "$tmp/fr/frame_000007.png.tmpAbCdE1" "$tmp/fr/frame_7.png.tmpAbCdE1" \
    "$tmp/fr/frame_000007.png.tmpAbCdE12" "$tmp/fr/notes.png.tmpAbCdE1"
  "$exe" -q -n 4 --frames "$tmp/fr" "$scene" >/dev/null || return 1
  [ ! -e "$tmp/fr/frame_000007.png.tmpAbCdE1" ] && [ -e "$tmp/fr/frame_7.png.tmpAbCdE1" ] &&
    [ -e "$tmp/fr/frame_000007.png.tmpAbCdE12" ] && [ -e "$tmp/fr/notes.png.tmpAbCdE1" ] &&
    [ -s "$tmp/fr/frame_000001.png" ]
}

check test_no_display_runs_headless_and_says_so
check test_checkpointed_run_says_why_headless
check test_screenshot_must_be_png
check test_headless_flag_says_so
check test_offscreen_options_checked
[ "$have_preview" = 1 ] && check test_frames_folder_is_made
[ "$have_preview" = 1 ] && check test_stale_frame_temp_files_removed
[ "$have_preview" = 1 ] || check test_without_sdl_offscreen_refused
finish
