# shellcheck shell=bash
# The one build preamble of the GPU machine's scripts (tools/device/*.sh), sourced from the
# repository root: takes the carried packages' environment (tools/device/setup.sh) and
# builds a release mixsim without the preview (-Dsdl=disabled) in FOLDER, from scratch.
#   . tools/device/build.sh [--keep] [--log FILE] [--append] [--target T] [--before DIR] \
#       FOLDER [MESON_OPTION...]
# FOLDER        always named: sourced with none, build.sh would get the caller's arguments
# MESON_OPTION  more options for FOLDER's meson setup, e.g. -Dmpi=enabled
# --keep        only the environment where FOLDER/mixsim (and DIR/mixsim) already exist
# --log FILE    the build's log, opened by the machine's facts (GPUs, OpenCL devices,
#               compiler, meson); default $OUT/build-NAME.log (NAME: FOLDER's name), else
#               /tmp/mixsim-build-NAME.log; --append adds to FILE instead of starting it afresh
# --target T    what meson compiles in FOLDER (default everything)
# --before DIR  also builds before/ into DIR (mixsim only, no extra options: the old tree may
#               lack them), unpacked afresh from .deps/before.tar (git archive
#               --prefix=before/ REV) when that is there
# On failure it prints the log's tail and exits the caller; it leaves ms_build_dir and
# ms_build_log set.
eval "$(tools/device/setup.sh)"
ms_build_keep='' ms_build_log='' ms_build_append='' ms_build_target='' ms_build_before=''
while [ $# -gt 0 ]; do
  case $1 in
  --keep) ms_build_keep=1 ;;
  --append) ms_build_append=1 ;;
  --log | --target | --before)
    [ $# -ge 2 ] || { echo "tools/device/build.sh: $1 needs a value" >&2; exit 2; }
    case $1 in
    --log) ms_build_log=$2 ;;
    --target) ms_build_target=$2 ;;
    --before) ms_build_before=$2 ;;
    esac
    shift ;;
  -*) echo "tools/device/build.sh: unknown option $1 (before FOLDER)" >&2; exit 2 ;;
  *) break ;;
  esac
  shift
done
[ $# -ge 1 ] || { echo "tools/device/build.sh: no FOLDER" >&2; exit 2; }
ms_build_dir=$1
shift
ms_build_name=$(basename "$ms_build_dir")
ms_build_name=build-${ms_build_name#build-}
ms_build_log=${ms_build_log:-${OUT:+$OUT/$ms_build_name.log}}
ms_build_log=${ms_build_log:-/tmp/mixsim-$ms_build_name.log}

if [ -n "$ms_build_keep" ] && [ -x "$ms_build_dir/mixsim" ] &&
  { [ -z "$ms_build_before" ] || [ -x "$ms_build_before/mixsim" ]; }; then
  : # kept as it is
else
  mkdir -p "$(dirname "$ms_build_log")"
  [ -n "$ms_build_append" ] || : >"$ms_build_log"
  {
    command -v nvidia-smi >/dev/null 2>&1 && nvidia-smi -L
    command -v clinfo >/dev/null 2>&1 && clinfo -l
    "${CC:-cc}" --version | head -1
    echo "meson $(meson --version)"
    rm -rf "$ms_build_dir" &&
      meson setup "$ms_build_dir" -Dsdl=disabled --buildtype=release "$@" &&
      meson compile -C "$ms_build_dir" ${ms_build_target:+"$ms_build_target"} &&
      if [ -n "$ms_build_before" ]; then
        if [ -f .deps/before.tar ]; then rm -rf before && tar xf .deps/before.tar
        else [ -f before/meson.build ] || { echo "--before: no .deps/before.tar, no before/"; false; }
        fi &&
          rm -rf "$ms_build_before" &&
          meson setup "$ms_build_before" before -Dsdl=disabled --buildtype=release &&
          meson compile -C "$ms_build_before" mixsim:executable
      fi
  } >>"$ms_build_log" 2>&1 || {
    tail -40 "$ms_build_log"
    echo "tools/device/build.sh: building $ms_build_dir${ms_build_before:+ and $ms_build_before} failed (log: $ms_build_log)" >&2
    exit 1
  }
fi
unset ms_build_keep ms_build_append ms_build_target ms_build_before ms_build_name
