#!/usr/bin/env bash
# Configures (once) and builds all of cudavision in ./build: the plugin,
# the library, the tests, the benchmarks and the tuner. Extra arguments go
# to `meson setup` (or, when ./build is already configured, to `meson
# configure`), e.g. tools/build.sh -Dgpu_arch=90 for a faster build for
# one GPU generation.
set -euo pipefail
cd "$(dirname "$0")/.."
cuda=${CUDA_HOME:-/usr/local/cuda}
if [ ! -f build/build.ninja ]; then
  meson setup build -Dcudatoolkit="$cuda" "$@"
else
  # tools/demo.sh configures ./build with the plugin alone (tests,
  # benchmarks, tuner and introspection disabled): turn them back on. The
  # GPU architectures stay as they are (-Dgpu_arch=all for every one).
  on=()
  if python3 - build/meson-info/intro-buildoptions.json <<'PY'
import json, sys
opts = {o["name"]: o["value"] for o in json.load(open(sys.argv[1]))}
sys.exit(0 if any(opts.get(k) == "disabled" for k in ("tests", "bench", "tuner")) else 1)
PY
  then
    echo "build: ./build was configured for the plugin alone (tools/demo.sh): turning the tests, benchmarks, tuner and introspection back on"
    for o in tests bench tuner introspection; do
      case " $* " in *" -D$o="*) ;; *) on+=("-D$o=auto") ;; esac
    done
  fi
  if [ ${#on[@]} -gt 0 ] || [ $# -gt 0 ]; then
    meson configure build "${on[@]}" "$@"
  fi
fi
ninja -C build
