#!/usr/bin/env bash
# Prepares a bare GPU machine that lacks inih (and maybe the OpenCL and pkg-config
# development files) from Debian packages carried in .deps/, fetched beforehand with
#   mkdir -p .deps && (cd .deps && apt-get download libinih1 libinih-dev \
#     ocl-icd-opencl-dev ocl-icd-libopencl1 opencl-c-headers zlib1g-dev \
#     pkgconf pkgconf-bin libpkgconf3 pkg-config)
# Nothing is unpacked into /: the packages go to a prefix, and this script prints the
# environment to use them:  eval "$(tools/device/setup.sh)"
set -euo pipefail
cd "$(dirname "$0")/../.." || exit 1
# The NVIDIA driver ships its OpenCL library without registering it with the loader.
if [ -e /dev/nvidiactl ] || command -v nvidia-smi >/dev/null 2>&1; then
  mkdir -p /etc/OpenCL/vendors
  [ -f /etc/OpenCL/vendors/nvidia.icd ] || echo libnvidia-opencl.so.1 >/etc/OpenCL/vendors/nvidia.icd
fi
# No packages carried (a machine that has them installed): nothing to export.
debs=(.deps/*.deb)
[ -e "${debs[0]}" ] || exit 0
prefix=${MIXSIM_DEPS_PREFIX:-/opt/mixsim-deps}
mkdir -p "$prefix"
for deb in "${debs[@]}"; do
  dpkg-deb -x "$deb" "$prefix"
done
find "$prefix" -name '*.pc' -exec sed -i "s|^prefix=/usr|prefix=$prefix/usr|" {} +
lib=$prefix/usr/lib/x86_64-linux-gnu
echo "export PKG_CONFIG_PATH=$lib/pkgconfig:$prefix/usr/share/pkgconfig\${PKG_CONFIG_PATH:+:\$PKG_CONFIG_PATH}"
echo "export LD_LIBRARY_PATH=$lib\${LD_LIBRARY_PATH:+:\$LD_LIBRARY_PATH}"
command -v pkg-config >/dev/null 2>&1 || echo "export PATH=$prefix/usr/bin:\$PATH"
