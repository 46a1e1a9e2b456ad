#!/usr/bin/env bash
# Configures (once) and builds cudavision in ./build. Extra arguments go to
# `meson setup`, e.g. tools/build.sh -Dgpu_arch=90 for a faster build for
# one GPU generation.
set -euo pipefail
cd "$(dirname "$0")/.."
cuda=${CUDA_HOME:-/usr/local/cuda}
if [ ! -f build/build.ninja ]; then
  meson setup build -Dcudatoolkit="$cuda" "$@"
fi
ninja -C build
