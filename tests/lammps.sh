#!/usr/bin/env bash
# The peer check: the same scene run by mixsim and by LAMMPS (tools/peers/lammps_compare.py:
# pair granular hooke with matched Tsuji damping, without and with friction, walls, frozen
# statics, same dt) ends with the same kinetic energy, before chaos separates the runs. Skipped (77)
# where LAMMPS is not installed.
#   lammps.sh MIXSIM SOURCE_ROOT
set -u
exe=$(realpath "$1")
root=$2
filter=${3:-}
. "$root/tests/lib.sh"
command -v lmp >/dev/null 2>&1 || skip_missing "no lmp: LAMMPS is not installed (tools/deps.sh test installs lammps)"

same_energy() { # scene args..., then the relative tolerance
  local tol=${*: -1}
  python3 "$root/tools/peers/lammps_compare.py" --mixsim "$exe" "${@:1:$#-1}" --steps 300 --repeat 1 \
    --out "$tmp/run" --json "$tmp/r.json" >"$tmp/log" 2>&1 || { cat "$tmp/log"; return 1; }
  python3 - "$tmp/r.json" "$tol" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
a, b = d["mixsim_kinetic_energy"], d["lammps_kinetic_energy"]
print("    kinetic energy after %d steps: mixsim %.9g, LAMMPS %.9g (%.1e)" % (
    d["steps"], a, b, abs(a / b - 1)))
assert b > 0 and abs(a / b - 1) < float(sys.argv[2])
PY
}

# 1e-4: mixsim's contacts are single precision on double differences, LAMMPS's double, so
# the energies part at about 1e-7 per step of a contact (measured: 3e-7 and 7e-6 after 300
# steps); a wrong damping, mass or wall law shows at 1e-3 and above.

# The demo as it was before it became frictional: a size range, static pegs, falling rocks,
# gravity, walls.
test_mixed_scene_matches_lammps() {
  same_energy --scene "$root/tests/scenes/mixed_frictionless.ini" 1e-4
}

# Large discs of 4 small radii among small ones, in a bed.
test_sweep_scene_matches_lammps() { same_energy --small 3000 --large 30 --ratio 4 1e-4; }

# The same bed with friction (mu 0.5 between discs and at the walls): mixsim's tangential
# spring, dashpot and Coulomb cap as LAMMPS's linear_history (validate_lammps.py's mapping).
test_frictional_scene_matches_lammps() {
  same_energy --small 3000 --large 30 --ratio 4 --friction 0.5 1e-4
}

check test_mixed_scene_matches_lammps
check test_sweep_scene_matches_lammps
check test_frictional_scene_matches_lammps
finish
