#!/usr/bin/env bash
# The preview window, under Xvfb: scripted key presses switch the buffers and the
# pipeline, reset, pause, step twice, resume, change the iterations per frame, take a
# screenshot and quit. The run exits 0, each command shows in its log, the report
# covers the whole session broken down by mode, and the final hash equals a headless
# run of the same number of iterations. The same for a gravity scene's 3D window, which
# also prints the headless run's report. With friction W switches the spin colours; A the
# timing bar's average of the last second. On a
# 1366x768 screen the window fits.
# usage: window.sh MIXSIM SOURCE_ROOT
# Skipped (77) only where xvfb-run is missing, and failed there under CI=true.
set -u
exe=$(realpath "$1")
root=$2
. "$root/tests/lib.sh"
command -v xvfb-run >/dev/null 2>&1 ||
  skip_missing "xvfb-run is missing (tools/deps.sh test installs xvfb xauth)"
cd "$tmp" || exit 1
fails=0
fail() {
  echo "FAIL $*"
  fails=$((fails + 1))
}

# The scripted keys are tied to window frames (60 a second) and the simulation must keep
# up with them: fill this test's pocl kernel cache first, so that no kernel is compiled
# while the window runs (pocl compiles on a kernel's first launch).
"$exe" -q --headless -n 4 "$root/tests/scenes/tiny.ini" >/dev/null &&
  "$exe" -q --headless -n 4 -p naive -b copied "$root/tests/scenes/tiny.ini" >/dev/null &&
  "$exe" -q --headless -n 2 "$root/scenes/kepler.ini" >/dev/null ||
  fail "the headless warm-up runs failed"

script="3:B,6:P,9:R,12:Space,16:N,20:N,24:Space,27:-,30:+,33:F12,36:H,42:Q"
timeout 300 xvfb-run -a -s "-screen 0 1280x1024x24" \
  "$exe" --script "$script" "$root/tests/scenes/tiny.ini" >out 2>err
rc=$?
cat err
cat out
[ $rc -eq 0 ] || fail "the window run exited $rc"

step_of() { sed -n "s/^mixsim: preview: step \([0-9]*\): $1\$/\1/p" err | head -1; }
grep -q "running headless" err && fail "no window opened"
for what in "buffers copied" "pipeline naive" "reset" "paused" "running" \
  "3 iterations per frame" "4 iterations per frame"; do
  [ -n "$(step_of "$what")" ] || fail "no '$what' in the log"
done
paused=$(step_of paused)
resumed=$(step_of running)
echo "paused at step $paused, resumed at step $resumed"
[ -n "$paused" ] && [ "$resumed" = "$((paused + 2))" ] || fail "N N while paused is not 2 steps"
grep -q "pipeline naive, buffers copied" out || fail "the switches did not last to the end"
ls mixsim-*.png >/dev/null 2>&1 || fail "F12 wrote no screenshot"

hash=$(sed -n 's/^state hash \([0-9a-f]*\) (step \([0-9]*\))$/\1/p' out)
steps=$(sed -n 's/^state hash \([0-9a-f]*\) (step \([0-9]*\))$/\2/p' out)

# The report covers the whole session, by mode: one row per pipeline/buffers combination
# run (B and P were pressed on different frames, so three ran), with counts that add up
# to the total, and the total includes the iterations before the reset.
rows() { sed -n 's/^  \(naive\|reordered\) *\(shared\|copied\) *\([0-9]*\) .*/\1 \2 \3/p' out; }
rows
count_of() { rows | awk -v m="$1 $2" '$1 " " $2 == m { print $3 }'; }
for mode in "reordered shared" "naive copied"; do
  [ -n "$(count_of $mode)" ] || fail "the report has no row for $mode"
done
copied_at=$(step_of "buffers copied")
if [ -n "$copied_at" ] && [ "$copied_at" != "$(step_of "pipeline naive")" ]; then
  [ -n "$(count_of reordered copied)" ] || fail "the report has no row for reordered copied"
fi
sum=$(rows | awk '{ s += $3 } END { print s + 0 }')
all=$(sed -n 's/^  all *\([0-9]*\) .*/\1/p' out)
run=$(sed -n 's/^run *\([0-9]*\) iterations.*/\1/p' out)
echo "by mode: $sum iterations; all: $all; run: $run; final step: $steps"
[ -n "$all" ] && [ "$sum" = "$all" ] && [ "$run" = "$all" ] ||
  fail "the modes' iterations do not add up to the run's"
[ -n "$copied_at" ] && [ -n "$all" ] && [ -n "$steps" ] && [ "$all" -ge "$((steps + copied_at))" ] ||
  fail "the report leaves out the iterations before the reset"

if [ -z "$hash" ] || [ -z "$steps" ] || [ "$steps" -eq 0 ]; then
  fail "no final hash and step in the window run's output"
else
  "$exe" -q --headless -n "$steps" "$root/tests/scenes/tiny.ini" >head || fail "headless run"
  want=$(sed -n 's/^state hash \([0-9a-f]*\).*/\1/p' head)
  echo "window: $hash after $steps steps; headless: $want"
  [ "$hash" = "$want" ] || fail "the window's hash differs from the headless run's"
fi

# A gravity scene gets the 3D view: pause, one step, run, turn the view, quit.
script="3:Space,6:N,9:Space,12:R,15:Q"
timeout 300 xvfb-run -a -s "-screen 0 1280x1024x24" \
  "$exe" --script "$script" "$root/scenes/kepler.ini" >gout 2>err
rc=$?
cat err gout
[ $rc -eq 0 ] || fail "the gravity window run exited $rc"
paused=$(step_of paused)
resumed=$(step_of running)
[ -n "$paused" ] && [ "$resumed" = "$((paused + 1))" ] || fail "gravity: N while paused is not 1 step"
hash=$(sed -n 's/^state hash \([0-9a-f]*\) (step \([0-9]*\))$/\1/p' gout)
steps=$(sed -n 's/^state hash \([0-9a-f]*\) (step \([0-9]*\))$/\2/p' gout)
if [ -z "$hash" ] || [ -z "$steps" ]; then
  fail "no final hash and step in the gravity window's output"
else
  "$exe" -q --headless -n "$steps" "$root/scenes/kepler.ini" >ghead || fail "headless gravity run"
  want=$(sed -n 's/^state hash \([0-9a-f]*\).*/\1/p' ghead)
  echo "gravity window: $hash after $steps steps; headless: $want"
  [ "$hash" = "$want" ] || fail "the gravity window's hash differs from the headless run's"
fi
# The gravity window prints the report a headless gravity run prints, line for line.
for line in device run speed energy momentum "time per phase" "    force kernel" \
  "    stepping, wall"; do
  grep -q "^$line" gout || fail "the gravity window's report has no '$line' line"
  grep -q "^$line" ghead || fail "the headless gravity report has no '$line' line"
done
# With friction, W colours the small particles by their spin and back; without, it says
# there is no spin to colour and changes nothing.
"$exe" -q --headless -n 4 "$root/tests/scenes/tiny_friction.ini" >/dev/null ||
  fail "the frictional warm-up run failed"
timeout 300 xvfb-run -a -s "-screen 0 1280x1024x24" \
  "$exe" --script "3:W,6:F12,9:W,12:H,15:Q" "$root/tests/scenes/tiny_friction.ini" >sout 2>err
rc=$?
cat err
[ $rc -eq 0 ] || fail "the frictional window run exited $rc"
[ -n "$(step_of "spin colours on")" ] && [ -n "$(step_of "spin colours off")" ] ||
  fail "W did not switch the spin colours on and off"
timeout 300 xvfb-run -a -s "-screen 0 1280x1024x24" \
  "$exe" --script "3:W,6:Q" "$root/tests/scenes/tiny.ini" >/dev/null 2>err
cat err
grep -q "W: no spin to colour (the scene has no friction)" err ||
  fail "W on a frictionless scene did not say why nothing changes"

# A switches the timing bar to the average of the last second and back.
timeout 300 xvfb-run -a -s "-screen 0 1280x1024x24" \
  "$exe" --script "3:A,20:F12,24:A,27:Q" "$root/tests/scenes/tiny.ini" >/dev/null 2>err
rc=$?
cat err
[ $rc -eq 0 ] || fail "the bar-average window run exited $rc"
on=$(step_of "timing bar: average of the last second")
off=$(step_of "timing bar: last frame")
[ -n "$on" ] && [ -n "$off" ] && [ "$on" -le "$off" ] ||
  fail "A did not switch the timing bar to the average and back"

# On a 1366x768 screen the window fits: SDL's report of where it is (the scripted log),
# and the X server's own (xwininfo, where installed), lie inside the screen, and the
# window keeps the picture's aspect at no less than the minimum size.
cat >fits.sh <<'EOS'
"$1" --script "150:Q" "$2" >/dev/null 2>fits.err &
pid=$!
if command -v xwininfo >/dev/null 2>&1; then
  for _ in $(seq 1 100); do # a bounded wait for the window to be mapped
    id=$(xwininfo -root -tree 2>/dev/null | awk '/"mixsim: / { print $1; exit }')
    [ -n "$id" ] && xwininfo -id "$id" >fits.x 2>/dev/null && break
    sleep 0.1
  done
fi
wait $pid
EOS
timeout 300 xvfb-run -a -s "-screen 0 1366x768x24" bash fits.sh "$exe" "$root/tests/scenes/tiny.ini"
grep -v "^mixsim: preview: step" fits.err
fits() { # width height x y: inside 1366x768, aspect 1.4, at least 700x500
  [ -n "$4" ] && [ "$3" -ge 0 ] && [ "$4" -ge 0 ] && [ $(($3 + $1)) -le 1366 ] &&
    [ $(($4 + $2)) -le 768 ] && [ "$1" -ge 700 ] && [ "$2" -ge 500 ] &&
    [ $((($1 * 10 + $2 / 2) / $2)) -eq 14 ]
}
read -r gw gh gx gy <<<"$(sed -n 's/.*SDL reports window \([0-9]*\)x\([0-9]*\) at (\(-*[0-9]*\), \(-*[0-9]*\)).*/\1 \2 \3 \4/p' fits.err)"
fits "${gw:-0}" "${gh:-0}" "${gx:-}" "${gy:-}" || fail "the window does not fit a 1366x768 screen (SDL)"
if [ -s fits.x ]; then
  xw=$(sed -n 's/^ *Width: *//p' fits.x)
  xh=$(sed -n 's/^ *Height: *//p' fits.x)
  xx=$(sed -n 's/^ *Absolute upper-left X: *//p' fits.x)
  xy=$(sed -n 's/^ *Absolute upper-left Y: *//p' fits.x)
  echo "X server: window ${xw}x${xh} at ($xx, $xy)"
  fits "${xw:-0}" "${xh:-0}" "${xx:-}" "${xy:-}" ||
    fail "the window does not fit a 1366x768 screen (xwininfo)"
fi
[ $fails -eq 0 ] && echo "ok   window" || exit 1
