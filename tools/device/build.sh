# Sourced by the GPU machine's scripts (tools/*-device.sh): takes the carried packages'
# environment (tools/device/setup.sh) and builds a release mixsim without the preview in
# the folder given (default bd), from scratch; on failure prints the log's tail and exits.
#   . tools/device/build.sh [folder]
eval "$(tools/device/setup.sh)"
ms_build_dir=${1:-bd}
{
  rm -rf "$ms_build_dir" && meson setup "$ms_build_dir" -Dsdl=disabled --buildtype=release &&
    meson compile -C "$ms_build_dir"
} >/tmp/device-build.log 2>&1 || { tail -40 /tmp/device-build.log; exit 1; }
