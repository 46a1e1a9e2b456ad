#!/usr/bin/env bash
# The main job: installs what is missing, builds, and runs cudavision on a
# bundled photograph. Writes demo-output/*.png for a person to look at.
# Uses the GPU when there is one; otherwise the CPU backend (and says so).
set -euo pipefail
cd "$(dirname "$0")/.."
tools/install-deps.sh
tools/build.sh
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
