#!/usr/bin/env bash
# The unit and gst suites built with AddressSanitizer and UBSan
# (-Db_sanitize=address,undefined) and run: what CI runs after the normal
# build (.ci/run). Host code only: nvcc's objects (the kernels) are not
# instrumented, and without a GPU the CPU backend is what runs.
#
#   tools/sanitize-test.sh [BUILDDIR]     (default build-asan)
#
# The second build is kept short: the kernels' objects are the main build's
# (build/, when it has them: -Dkernel_objects), else compiled for one GPU
# architecture (sm_75); host code at -O1 (ASan's usual level), the test
# programs' own sources at -O0 (tests/meson.build: with ASan and UBSan a
# gtest source such as test_launch_policy.cpp took 91 s to compile at -O2,
# 62 s at -O1 and 12 s at -O0 on this 2-core machine), and debug
# information as line tables only (-g1: every frame of a report still has
# its file and line; a quarter less compile time than -g). Any sanitizer
# report fails the test that caused it (UBSan stops at the first error);
# LeakSanitizer reports leaks at exit. The few tests that sweep many
# photographs, windows or cycles sweep fewer in this build, every case
# still (tests/meson.build sets CUDAVISION_SANITIZER_PASS).
set -euo pipefail
cd "$(dirname "$0")/.."
bdir=${1:-build-asan}
cuda=${CUDA_HOME:-/usr/local/cuda}
if [ ! -f "$bdir/build.ninja" ]; then
  kernels=()
  if [ -f build/build.ninja ]; then
    # the main build's kernels, brought up to date first (nothing to do
    # after tools/build.sh, as in CI)
    ninja -C build cuda/libcudavision-cuda.a >/dev/null
    kernels=(-Dkernel_objects="$PWD/build/cuda/libcudavision-cuda.a.p")
  fi
  meson setup "$bdir" -Dcudatoolkit="$cuda" -Db_sanitize=address,undefined -Db_lundef=false \
    -Doptimization=1 -Ddebug=false -Dc_args=-g1 -Dcpp_args=-g1 \
    -Dgpu_arch=75 -Dbench=disabled "${kernels[@]}" >/dev/null
fi
# only what the unit and gst suites run, and the programs they start
# (cudavision-tune; the plugin, which the no-gpu test's gst-launch-1.0 loads);
# a test whose program is not built (python3, a script in tools/) has none
targets=$(meson introspect "$bdir" --tests | python3 -c '
import json, os, sys
root = os.path.abspath(sys.argv[1])
for t in json.load(sys.stdin):
    if set(t["suite"]) & {"cudavision:unit", "cudavision:gst", "unit", "gst"}:
        rel = os.path.relpath(t["cmd"][0], root)
        if not rel.startswith(".."):
            print(rel)
' "$bdir" | sort -u)
targets="$targets tools/cudavision-tune gst/libgstcudavision.so"
# shellcheck disable=SC2086
ninja -C "$bdir" $targets
# protect_shadow_gap=0: the CUDA driver maps memory where ASan's shadow gap
# would be (harmless without a GPU, needed with one)
export ASAN_OPTIONS=${ASAN_OPTIONS:-protect_shadow_gap=0:detect_leaks=1:halt_on_error=1}
export UBSAN_OPTIONS=${UBSAN_OPTIONS:-halt_on_error=1:print_stacktrace=1}
export LSAN_OPTIONS=${LSAN_OPTIONS:-suppressions=$PWD/tools/lsan.supp:print_suppressions=0}
run_suites () {
  meson test -C "$bdir" --suite unit --suite gst --no-rebuild --print-errorlogs --num-processes 2 \
    --timeout-multiplier 10 "$@"
}
if run_suites; then
  exit 0
fi
# LeakSanitizer's own crash at exit ("Tracer caught signal 11", its
# stop-the-world thread; seen once in CI in edges-cpu, whose seven tests
# had passed, and in none of 8 runs of the same binary since) is
# no finding about our code: a test that failed only so runs once more.
# A test that failed in any other way, or crashes the tracer twice, fails.
retry=$(python3 - "$bdir/meson-logs/testlog.json" <<'PY'
import json, sys
failed, tracer = [], []
for line in open(sys.argv[1]):
    t = json.loads(line)
    if t["result"] in ("OK", "SKIP", "EXPECTEDFAIL"):
        continue
    out = (t.get("stdout") or "") + (t.get("stderr") or "")
    name = t["name"].split(" / ")[-1]
    (tracer if "LeakSanitizer has encountered a fatal error" in out else failed).append(name)
print(" ".join(tracer) if tracer and not failed else "")
PY
)
if [ -z "$retry" ]; then
  exit 1
fi
echo "LeakSanitizer's tracer crashed in: $retry; running those once more"
# shellcheck disable=SC2086
run_suites $retry
