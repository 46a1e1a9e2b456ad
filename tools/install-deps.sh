#!/usr/bin/env bash
# Installs what cudavision needs to build and test on Debian 12 (as root).
# The CUDA toolkit is expected under /usr/local/cuda (or CUDA_HOME): it is
# not a Debian package. Packages already present are left alone.
set -euo pipefail
PKGS="meson ninja-build pkg-config g++ python3 clang-format
  libgstreamer1.0-dev libgstreamer-plugins-base1.0-dev libgstreamer-plugins-bad1.0-dev
  gstreamer1.0-plugins-base gstreamer1.0-plugins-good gstreamer1.0-plugins-bad gstreamer1.0-libav
  gstreamer1.0-tools libopencv-dev opencv-data libgtest-dev
  python3-gi gir1.2-gst-plugins-base-1.0 python3-gst-1.0
  gobject-introspection libgirepository1.0-dev gir1.2-gstreamer-1.0"
missing=$(for p in $PKGS; do dpkg-query -W -f='${Status}\n' "$p" 2>/dev/null | grep -q "ok installed" || echo "$p"; done)
if [ -n "$missing" ]; then
  if [ "$(id -u)" != 0 ]; then
    echo "missing packages: $missing -- run this script as root (or with sudo)" >&2
    exit 1
  fi
  echo "installing:" $missing
  apt-get update
  DEBIAN_FRONTEND=noninteractive apt-get install -y --no-install-recommends $missing
fi
cuda=${CUDA_HOME:-/usr/local/cuda}
if [ ! -x "$cuda/bin/nvcc" ]; then
  echo "no CUDA toolkit at $cuda (set CUDA_HOME): nvcc is needed to build the kernels" >&2
  exit 1
fi
