#!/usr/bin/env bash
# The unit and gst suites built with AddressSanitizer and UBSan
# (-Db_sanitize=address,undefined) and run: what CI runs after the normal
# build (.ci/run). Host code only: nvcc's objects (the kernels) are not
# instrumented, and without a GPU the CPU backend is what runs.
#
#   tools/sanitize-test.sh [BUILDDIR]     (default build-asan)
#
# One GPU architecture (sm_75) keeps the second build short. Any sanitizer
# report fails the test that caused it (UBSan stops at the first error);
# LeakSanitizer reports leaks at exit.
set -euo pipefail
cd "$(dirname "$0")/.."
bdir=${1:-build-asan}
cuda=${CUDA_HOME:-/usr/local/cuda}
if [ ! -f "$bdir/build.ninja" ]; then
  meson setup "$bdir" -Dcudatoolkit="$cuda" -Db_sanitize=address,undefined -Db_lundef=false \
    -Dgpu_arch=75 -Dbench=disabled >/dev/null
fi
# only what the unit and gst suites run, and the programs they start
# (cudavision-tune; the plugin, which the no-gpu test's gst-launch-1.0 loads)
targets=$(meson introspect "$bdir" --tests | python3 -c '
import json, os, sys
root = os.path.abspath(sys.argv[1])
for t in json.load(sys.stdin):
    if set(t["suite"]) & {"cudavision:unit", "cudavision:gst", "unit", "gst"}:
        print(os.path.relpath(t["cmd"][0], root))
' "$bdir" | sort -u)
targets="$targets tools/cudavision-tune gst/libgstcudavision.so"
# shellcheck disable=SC2086
ninja -C "$bdir" $targets
# protect_shadow_gap=0: the CUDA driver maps memory where ASan's shadow gap
# would be (harmless without a GPU, needed with one)
export ASAN_OPTIONS=${ASAN_OPTIONS:-protect_shadow_gap=0:detect_leaks=1:halt_on_error=1}
export UBSAN_OPTIONS=${UBSAN_OPTIONS:-halt_on_error=1:print_stacktrace=1}
export LSAN_OPTIONS=${LSAN_OPTIONS:-suppressions=$PWD/tools/lsan.supp:print_suppressions=0}
meson test -C "$bdir" --suite unit --suite gst --no-rebuild --print-errorlogs --num-processes 2 \
  --timeout-multiplier 10
