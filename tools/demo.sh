#!/usr/bin/env bash
# The main job: installs what is missing, builds, and runs cudavision on a
# bundled photograph. Writes demo-output/*.png for a person to look at.
# Uses the GPU when there is one; otherwise the CPU backend (and says so).
#
# The build is the plugin alone (ninja's target gst/libgstcudavision.so and
# what it links), in ./build, for this machine's GPU architecture
# (nvidia-smi's compute capability) or, without a GPU, for one architecture
# (sm_90): no tests, benchmarks, tuner or introspection data. A ./build
# that is already configured (tools/build.sh, tools/test.sh) is used as it
# is; tools/test.sh turns the rest back on in the same directory.
set -euo pipefail
cd "$(dirname "$0")/.."
tools/install-deps.sh
cuda=${CUDA_HOME:-/usr/local/cuda}
if [ ! -f build/build.ninja ]; then
  arch=""
  if command -v nvidia-smi > /dev/null 2>&1; then
    # "9.0" -> "90"; several GPUs: each distinct architecture once
    arch=$(nvidia-smi --query-gpu=compute_cap --format=csv,noheader 2> /dev/null |
      tr -d ' .' | grep -E '^[0-9]+$' | sort -u | paste -sd, || true)
  fi
  if [ -n "$arch" ]; then
    echo "demo: building the plugin for this machine's GPU (sm_${arch//,/, sm_})"
  else
    arch=90
    echo "demo: no GPU found: building the plugin for sm_90 only (the elements will run on the CPU backend)"
  fi
  meson setup build -Dcudatoolkit="$cuda" -Dgpu_arch="$arch" \
    -Dtests=disabled -Dbench=disabled -Dtuner=disabled -Dintrospection=disabled
fi
# ninja prints "[done/total, seconds]" before each step
NINJA_STATUS="[%f/%t, %es] " ninja -C build gst/libgstcudavision.so
out=demo-output
mkdir -p "$out"
export GST_PLUGIN_PATH="$PWD/build/gst${GST_PLUGIN_PATH:+:$GST_PLUGIN_PATH}"
# run NAME ELEMENT... : $src (default astronaut.png) through the elements
# into $out/NAME.png
run() {
  local name=$1; shift
  gst-launch-1.0 -q filesrc location="${src:-tests/data/astronaut.png}" ! decodebin ! videoconvert ! "$@" ! \
    videoconvert ! pngenc ! filesink location="$out/$name.png"
  echo "wrote $out/$name.png"
}
run astronaut-gray cudagray
for extra in tools/demo.d/*.sh; do
  [ -f "$extra" ] && . "$extra"
done
echo "done: open the PNG files in $out/"
