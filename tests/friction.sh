#!/usr/bin/env bash
# Friction from the command line: one state hash across runs, pipelines, buffer modes,
# exchanges, CPU worker threads and pocl threads; checkpoints (since format 3) that carry the
# rotation and the contact histories and resume to the uninterrupted hash; an older
# format refused naming both versions; a damaged friction section refused; the dump's
# theta, omega columns and its state file (grid radius, contact histories), read back as
# the scene's particles.
# usage: friction.sh MIXSIM SOURCE_ROOT [determinism|cli]: the hash matrix, the rest, or
# (no third argument) both
set -u
exe=$(realpath "$1")
root=$(realpath "$2")
group=${3:-all}
scene=$root/tests/scenes/tiny_friction.ini
. "$(dirname "$0")/lib.sh"
cd "$tmp" || exit 1

test_one_hash_everywhere() {
  local want got p b x t xt
  "$exe" -q -n 400 "$scene" >full || return 1
  want=$(hash_of full)
  "$exe" -q -n 400 "$scene" >again || return 1
  [ "$(hash_of again)" = "$want" ] || { echo "    a second run: $(hash_of again), first $want"; return 1; }
  for p in naive reordered; do
    for b in shared copied; do
      for xt in zone/1 full/3 zone/3 full/1; do
        x=${xt%/*} t=${xt#*/}
        # (all four exchange and thread pairs in two of the modes, two in the others)
        [ $p/$b = naive/shared ] || [ $p/$b = reordered/copied ] || [ "$xt" = zone/1 ] ||
          [ "$xt" = full/3 ] || continue
        MIXSIM_CPU_GRAIN=1 "$exe" -q -n 400 -p $p -b $b --exchange $x --cpu-threads $t "$scene" >r ||
          return 1
        got=$(hash_of r)
        [ "$got" = "$want" ] || { echo "    $p/$b/$x/$t threads: $got, want $want"; return 1; }
      done
    done
  done
  for t in 1 2; do
    POCL_MAX_PTHREAD_COUNT=$t "$exe" -q -n 400 "$scene" >r || return 1
    [ "$(hash_of r)" = "$want" ] || { echo "    pocl $t threads: $(hash_of r), want $want"; return 1; }
  done
  echo "    all: $want"
  # and the hash covers the rotation: it is not the frictionless scene's
  sed '/friction = \|wall_friction\|rolling_friction/d' "$scene" >nofric.ini
  "$exe" -q -n 400 nofric.ini >nf || return 1
  [ "$(hash_of nf)" != "$want" ]
}

# At step 360 the state has live histories of every kind: small-small, large-small,
# large-large and walls (test_checkpoint_holds_histories).
test_resume_equals_uninterrupted() {
  local want got p b
  "$exe" -q -n 450 "$scene" >full || return 1
  want=$(hash_of full)
  "$exe" -q -n 360 --checkpoint k.ck "$scene" >/dev/null || return 1
  for p in naive reordered; do
    for b in shared copied; do
      "$exe" -q -n 450 -p $p -b $b --resume k.ck "$scene" >r || return 1
      got=$(hash_of r)
      echo "    $p/$b: $got (uninterrupted $want)"
      [ -n "$want" ] && [ "$got" = "$want" ] || return 1
    done
  done
}

refused() { # checkpoint, expected words (grep -E)
  "$exe" -q -n 450 --resume "$1" "$scene" >/dev/null 2>err
  local rc=$?
  [ $rc -eq 2 ] && grep -qE "$2" err || { echo "    $1: exit $rc: $(cat err)"; return 1; }
}

test_old_version_refused() {
  # Written by the mixsim before friction (format 2) from tests/scenes/tiny.ini.
  "$exe" -q -n 10 --resume "$root/tests/data/tiny_v2.ck" "$root/tests/scenes/tiny.ini" >out 2>err
  local rc=$?
  cat err
  [ $rc -eq 2 ] && grep -q "format version 2" err && grep -q "version 3" err && [ ! -s out ]
}

# A checkpoint's friction section (payload after the header's 40 bytes, from offset p past
# the record of the scene's files: count, 16 bytes and a key per file, its CRC-32):
# counts n_small, n_large (i32), step (i64), capacity, largest overflow (i32), four i64
# counters, then small pos/vel (16 n_small each), large state (32 n_large); then
# friction (i32), n_ss, n_ls, n_ll (i64), small rotation (16 n_small), large rotation
# (16 n_large), wall histories (16 n_small, 16 n_large), the history entries (12 each).
friction_at() { # checkpoint: offset of the friction flag in the file
  PYTHONPATH="$root/tests" python3 - "$1" <<'PY'
import struct, sys
d = open(sys.argv[1], 'rb').read()
from ckpt_bytes import fields_at, reseal
p = fields_at(d)
ns, nl = struct.unpack_from('<ii', d, p)
print(p + 56 + 32 * ns + 32 * nl)
PY
}

# edit IN OUT PYTHON: runs PYTHON on the bytearray d (f = the friction flag's offset,
# ns, nl the counts), then fixes the payload size and both checksums.
edit() {
  PYTHONPATH="$root/tests" python3 - "$1" "$2" "$3" <<'PY'
import struct, sys
d = bytearray(open(sys.argv[1], 'rb').read())
from ckpt_bytes import fields_at, reseal
p = fields_at(d)
ns, nl = struct.unpack_from('<ii', d, p)
f = p + 56 + 32 * ns + 32 * nl
exec(sys.argv[3])
reseal(d)
open(sys.argv[2], 'wb').write(d)
PY
}

test_checkpoint_holds_histories() {
  "$exe" -q -n 360 --checkpoint k.ck "$scene" >/dev/null || return 1
  local counts
  counts=$(PYTHONPATH="$root/tests" python3 - k.ck <<'PY'
import struct, sys
d = open(sys.argv[1], 'rb').read()
from ckpt_bytes import fields_at, reseal
p = fields_at(d)
ns, nl = struct.unpack_from('<ii', d, p)
f = p + 56 + 32 * ns + 32 * nl
flag, n_ss, n_ls, n_ll = struct.unpack_from('<iqqq', d, f)
walls = struct.unpack_from('<%df' % (4 * ns), d, f + 28 + 16 * ns + 16 * nl)
print(flag, n_ss, n_ls, n_ll, sum(1 for x in walls if x != 0.0))
PY
)
  echo "    friction flag, small-small, large-small, large-large, small wall histories: $counts"
  read -r flag n_ss n_ls n_ll walls <<<"$counts"
  [ "$flag" = 1 ] && [ "$n_ss" -gt 0 ] && [ "$n_ls" -gt 0 ] && [ "$n_ll" -gt 0 ] && [ "$walls" -gt 0 ]
}

test_damaged_friction_section_refused() {
  "$exe" -q -n 360 --checkpoint k.ck "$scene" >/dev/null || return 1
  local size f cut at
  # (the sections before the ids, which end the file: tests/ids.sh damages those)
  size=$(PYTHONPATH="$root/tests" python3 -c "import sys; from ckpt_bytes import ids; print(ids(open(sys.argv[1], 'rb').read())['at'])" k.ck)
  f=$(friction_at k.ck)
  # cut inside the friction section, or flipped there: the checks and checksums see it
  for cut in $((f + 2)) $((f + 20)) $((f + 40)) $(((f + size) / 2)) $((size - 1)); do
    head -c $cut k.ck >cut.ck
    refused cut.ck "refused: truncated in field '(friction|.*contacts|.*rotation|.*histories)'" ||
      return 1
  done
  for at in $((f + 1)) $((f + 30)) $((f + 60)) $((size - 3)); do
    python3 -c "import sys; d=bytearray(open(sys.argv[1],'rb').read()); d[int(sys.argv[2])]^=0x40; open(sys.argv[3],'wb').write(d)" \
      k.ck $at flip.ck
    refused flip.ck "refused: .*(checksum mismatch|field)" || return 1
  done
  # valid checksums, fields no run writes: each named
  edit k.ck e1.ck "struct.pack_into('<i', d, f, 0)" || return 1
  refused e1.ck "field 'friction' = 0: the scene has friction" || return 1
  edit k.ck e2.ck "struct.pack_into('<q', d, f + 4, 1 << 40)" || return 1
  refused e2.ck "field 'small-small contacts' = 1099511627776 is more than the pairs" || return 1
  edit k.ck e3.ck "struct.pack_into('<d', d, f + 28 + 16 * 7, float('nan'))" || return 1
  refused e3.ck "field 'small rotation' has a non-finite value \(entry 14\)" || return 1
  # one more large-large entry (at the list's end, before the walls section), pairing
  # particle 0 with itself
  edit k.ck e4.ck "from ckpt_bytes import walls_at; w = walls_at(d); n = struct.unpack_from('<q', d, f + 20)[0]; struct.pack_into('<q', d, f + 20, n + 1); d[w:w] = struct.pack('<iif', 0, 0, 0.0)" ||
    return 1
  refused e4.ck "field 'large-large histories' entry" || return 1
  # the first small-small entry's partner past the last small particle
  edit k.ck e6.ck "struct.pack_into('<i', d, f + 28 + 32 * ns + 32 * nl + 4, ns)" || return 1
  refused e6.ck "field 'small-small histories' entry 0 names particles [0-9]+ and 200, outside" ||
    return 1
  # one more byte than the counts call for
  edit k.ck e5.ck "d += b'x'" || return 1
  refused e5.ck "trailing bytes"
}

test_dump_has_theta_omega() {
  "$exe" -q -n 50 --dump d.csv "$scene" >/dev/null || return 1
  head -1 d.csv | grep -qx "kind,index,x,y,vx,vy,radius,mass,static,theta,omega,id" || return 1
  # every row has both; the static peg (large 0) neither turns nor turned
  awk -F, 'NR > 1 && NF != 12 { bad = 1 } END { exit bad }' d.csv || return 1
  grep -q "^large,0,.*,1,0,0,[0-9]*$" d.csv || return 1
  # frictionless scenes keep the old columns
  "$exe" -q -n 5 --dump plain.csv "$root/tests/scenes/tiny.ini" >/dev/null || return 1
  head -1 plain.csv | grep -qx "kind,index,x,y,vx,vy,radius,mass,static,id"
}

# The scene with its particles from a dump: the same keys, [small] file and one
# [large_file.all] instead of the placed particles.
from_dump() { # dump, scene out
  python3 - "$scene" "$1" "$2" <<'PY'
import sys
src, dump, out = sys.argv[1:4]
text, skip = [], False
for line in open(src):
    s = line.strip()
    if s.startswith('['):
        skip = s in ('[small]', '[large.peg]', '[large_random.rocks]')
    if not skip:
        text.append(line)
text.append('[small]\nfile = %s\n[large_file.all]\nfile = %s\n' % (dump, dump))
open(out, 'w').write(''.join(text))
PY
}

test_dump_read_back() {
  # The state at step 60 (angles and spins included) is the read-back scene's step 0.
  "$exe" -q -n 60 --dump d60.csv "$scene" >full || return 1
  from_dump d60.csv back.ini || return 1
  "$exe" -q -n 0 back.ini >b0 2>err || { cat err; return 1; }
  echo "    step 60: $(hash_of full), read back: $(hash_of b0)"
  [ "$(hash_of full)" = "$(hash_of b0)" ] || return 1
  # The initial state (no contact has a history yet) runs on to the uninterrupted hash.
  "$exe" -q -n 0 --dump d0.csv "$scene" >/dev/null || return 1
  from_dump d0.csv back0.ini || return 1
  "$exe" -q -n 150 back0.ini >r 2>err || { cat err; return 1; }
  "$exe" -q -n 150 "$scene" >full150 || return 1
  echo "    step 150: $(hash_of full150), from the dump of step 0: $(hash_of r)"
  [ "$(hash_of full150)" = "$(hash_of r)" ] || return 1
  # A frictionless scene reading theta, omega says it does not use them.
  sed '/friction = \|wall_friction\|rolling_friction/d' back.ini >plain.ini
  "$exe" -n 0 plain.ini >/dev/null 2>err || { cat err; return 1; }
  grep -q "theta and omega columns, which this scene does not use" err
}

# A dump of a frictional state carries what its rows do not hold beside it (FILE.state.csv,
# bound to the dump's bytes: the grid's radius, the contact histories of every kind): read
# back, the dump of step 250 runs on to the uninterrupted run's hash at 500, in another
# pipeline and buffer mode too, and so does one of friction_bed.ini (contacts of every kind;
# polydisperse: its grid is sized by radius_max, which no drawn disc reaches).
# Without it (removed, or of an edited dump, or a dump on '-') the run is warned about,
# naming what it loses, and ends elsewhere; rows the scene does not read are left out,
# said so; the state file is part of the scene's identity (a checkpoint of it refuses a
# changed one); a malformed one is refused at its line.
test_dump_runs_on_to_the_uninterrupted_hash() {
  "$exe" -q -n 500 "$scene" >full500 || return 1
  "$exe" -q -n 250 --dump d250.csv "$scene" >/dev/null || return 1
  [ -s d250.state.csv ] &&
    head -1 d250.state.csv | grep -q "^# mixsim dump state: dump CRC-32 [0-9a-f]*, [0-9]* bytes; grid radius 0.00499999989 m; step 250;" &&
    sed -n 2p d250.state.csv | grep -qx "pair,a,b,xi" || return 1
  from_dump d250.csv on.ini || return 1
  "$exe" -q -n 250 on.ini >on 2>err || { cat err; return 1; }
  "$exe" -q -n 250 -p naive -b copied on.ini >on2 2>err || { cat err; return 1; }
  echo "    step 500: $(hash_of full500), from the dump of step 250: $(hash_of on), naive/copied $(hash_of on2)"
  [ "$(hash_of on)" = "$(hash_of full500)" ] && [ "$(hash_of on2)" = "$(hash_of full500)" ] ||
    return 1
  # every kind of contact, in a polydisperse bed whose grid is sized by radius_max, which no
  # drawn disc reaches (tests/scenes/friction_bed.ini, step 500)
  local bed=$root/tests/scenes/friction_bed.ini kind
  "$exe" -q -n 500 --dump b500.csv "$bed" >/dev/null || return 1
  for kind in small-small large-small large-large small-wall large-wall; do
    grep -q "^$kind," b500.state.csv || { echo "    no $kind row"; return 1; }
  done
  scene_from_dump "$bed" b500.csv bed_on.ini || return 1
  "$exe" -q -n 800 "$bed" >bed_full && "$exe" -q -n 300 bed_on.ini >bed_on || return 1
  echo "    friction_bed step 800: $(hash_of bed_full), from the dump of step 500: $(hash_of bed_on)"
  [ "$(hash_of bed_on)" = "$(hash_of bed_full)" ] || return 1
  # part of the scene's identity
  "$exe" -q -n 100 --checkpoint on.ck on.ini >/dev/null || return 1
  cp d250.state.csv keep.csv
  sed -i '3s/,\([-0-9.e]*\)$/,1e-9/' d250.state.csv
  "$exe" -q -n 250 --resume on.ck on.ini >/dev/null 2>err
  [ $? -eq 2 ] && grep -qF "written from another scene: 'd250.state.csv' ([small] file's dump state) has changed" err ||
    { cat err; return 1; }
  cp keep.csv d250.state.csv
  # lost: no file beside the dump
  mv d250.state.csv away.csv
  "$exe" -n 250 --headless on.ini >lost 2>err || { cat err; return 1; }
  mv away.csv d250.state.csv
  grep -qF "on.ini:27: [small] file: d250.csv looks like a --dump (an index column) but has no state beside it (d250.state.csv): the grid is sized by the file's largest radius and every contact's tangential spring starts unstretched, so this frictional run does not continue the dumped run exactly" err &&
    [ "$(hash_of lost)" != "$(hash_of full500)" ] || { cat err; return 1; }
  # lost: the dump edited since (a comment line keeps its rows)
  cp d250.csv d250.keep && echo "# edited" >>d250.csv
  "$exe" -n 0 --headless on.ini >/dev/null 2>err
  mv d250.keep d250.csv
  grep -qF "d250.state.csv belongs to another version of d250.csv" err &&
    grep -qF "it is not read: the grid is sized by the file's largest radius and every contact's tangential spring starts unstretched, so the run does not continue the dumped run exactly" err ||
    { cat err; return 1; }
  # lost: a dump on standard output
  "$exe" -n 5 --headless --dump - "$scene" >/dev/null 2>err
  grep -qF -- "--dump -: the state its rows do not hold is not written (it goes beside a dump file, as NAME.state.csv): a scene reading this dump sizes its grid by the largest radius and starts with every contact's tangential spring unstretched" err ||
    { cat err; return 1; }
  # the large rows not read: their contacts left out, said so
  sed '/^\[large_file/,$d' bed_on.ini >small_only.ini
  "$exe" -n 0 --headless small_only.ini >/dev/null 2>err || { cat err; return 1; }
  grep -qE "[0-9]+ contact histories of b500.state.csv name rows of b500.csv that this scene does not read; they are left out" err ||
    { cat err; return 1; }
  # malformed
  printf 'small-sideways,0,1,1e-6\n' >>d250.state.csv
  "$exe" -q -n 0 on.ini >/dev/null 2>err
  local rc=$?
  [ $rc -eq 2 ] && grep -qF "d250.state.csv:$(wc -l <d250.state.csv): column pair: expected small-small" err ||
    { echo "    rc $rc: $(cat err)"; return 1; }
  # the docs say so
  grep -qF "NAME.state.csv" "$root/docs/cli.md" && grep -qF "NAME.state.csv" "$root/docs/friction.md"
}

test_spin_column_and_key_refused() { # and a spinning static particle
  "$exe" -q -n 0 --dump d0.csv "$scene" >/dev/null || return 1
  from_dump d0.csv back.ini || return 1
  sed '0,/^file = d0.csv$/s//file = d0.csv\nspin = 1/' back.ini >both.ini
  "$exe" -q -n 0 both.ini >/dev/null 2>err
  local rc=$?
  cat err
  [ $rc -eq 2 ] && grep -q "both.ini:[0-9]*: \[small\] spin: .*omega column" err || return 1
  # a static particle with a spin
  printf 'x,y,radius,static,omega\n0.15,0.2,0.02,1,3\n' >rocks.csv
  printf '[simulation]\ndt = 1e-5\n[box]\nmin = 0, 0\nmax = 0.3, 0.3\n[material]\nstiffness = 1e5\nrestitution = 0.5\nfriction = 0.5\n[large_file.rocks]\nfile = rocks.csv\n' >static.ini
  "$exe" -q -n 0 static.ini >/dev/null 2>err
  rc=$?
  cat err
  [ $rc -eq 2 ] && grep -q "static.ini:[0-9]*: \[large_file.rocks\] file: .*rocks.csv:2: column omega: a static particle never turns" err
}

if [ "$group" != cli ]; then
  check test_one_hash_everywhere
fi
if [ "$group" != determinism ]; then
  check test_resume_equals_uninterrupted
  check test_checkpoint_holds_histories
  check test_old_version_refused
  check test_damaged_friction_section_refused
  check test_dump_has_theta_omega
  check test_dump_read_back
  check test_dump_runs_on_to_the_uninterrupted_hash
  check test_spin_column_and_key_refused
fi
finish
