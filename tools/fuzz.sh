#!/usr/bin/env bash
# Fuzzes the two readers that take files from outside: the Haar cascade
# reader (core/face/haar_cascade.h) and the tuning-table reader
# (core/policy/tuning_table.h), with libFuzzer, ASan and UBSan (clang);
# and the cascade reader against OpenCV's on the same bytes (cascade-diff:
# one verdict and the same numbers, or a finding).
#
#   tools/fuzz.sh [--time SECONDS] [--only haar-cascade|tuning-table|cascade-diff] [--builddir DIR]
#
# --time: seconds per target (default 60, what CI runs; docs/RELIABILITY.md
# records 10-minute runs). Configures DIR (default build-fuzz) once with
# clang, -Dfuzz=enabled and -Db_sanitize=address,undefined, builds only the
# fuzz targets (no CUDA code), makes the seed corpus from real files
# (opencv-data's cascades, fuzz/seeds/tuning-table/*.tsv; fuzz/make_seeds.py,
# plus fuzz/regressions/: inputs of past findings, and fuzz/corners/:
# hand-made files at the corners of OpenCV's XML reading) and runs each
# target. Inputs that crash or trip a sanitizer, or on which the cascade
# readers disagree, are written to DIR/findings/TARGET/ and fail the run;
# the corpus grown by earlier runs is kept in DIR/corpus/TARGET/. Ends with
# one line per target. The targets run side by side (each --time seconds
# of wall time). Installs clang and libFuzzer's runtime (Debian:
# clang, libclang-rt-14-dev) when missing.
set -euo pipefail
cd "$(dirname "$0")/.."
time_s=60
only=""
bdir=build-fuzz
while [ $# -gt 0 ]; do
  case $1 in
    --time) time_s=$2; shift 2 ;;
    --only) only=$2; shift 2 ;;
    --builddir) bdir=$2; shift 2 ;;
    *) echo "usage: $0 [--time SECONDS] [--only haar-cascade|tuning-table|cascade-diff] [--builddir DIR]" >&2; exit 2 ;;
  esac
done

# the probe program in a fresh directory of its own (never a fixed /tmp name)
clang_rt_ok() {
  command -v clang++ >/dev/null || return 1
  local dir rc
  dir=$(mktemp -d "${TMPDIR:-/tmp}/cudavision-fuzz-probe.XXXXXX") || return 1
  echo 'extern "C" int LLVMFuzzerTestOneInput(const char*, unsigned long){return 0;}' |
    clang++ -x c++ -fsanitize=fuzzer,address,undefined - -o "$dir/probe" 2>/dev/null
  rc=$?
  rm -rf "$dir"
  return $rc
}
if ! clang_rt_ok; then
  if [ "$(id -u)" != 0 ]; then
    echo "clang with libFuzzer is needed: apt-get install clang libclang-rt-14-dev (as root)" >&2
    exit 1
  fi
  DEBIAN_FRONTEND=noninteractive apt-get install -y --no-install-recommends clang libclang-rt-14-dev
  clang_rt_ok || { echo "clang cannot link -fsanitize=fuzzer" >&2; exit 1; }
fi

cuda=${CUDA_HOME:-/usr/local/cuda}
if [ ! -f "$bdir/build.ninja" ]; then
  CC=clang CXX=clang++ meson setup "$bdir" -Dcudatoolkit="$cuda" -Dfuzz=enabled \
    -Db_sanitize=address,undefined -Db_lundef=false -Dtests=disabled -Dbench=disabled -Dgpu_arch=75 >/dev/null
fi
targets=(haar-cascade tuning-table cascade-diff)
[ -n "$only" ] && targets=("$only")
ninja -C "$bdir" "${targets[@]/#/fuzz/fuzz-}" >/dev/null

seeds=$bdir/seeds
rm -rf "$seeds"
cascades=()
for d in /usr/share/opencv4/haarcascades /usr/share/opencv4/lbpcascades; do
  [ -d "$d" ] && cascades+=("$d")
done
python3 fuzz/make_seeds.py "$seeds" --cascades "${cascades[@]}" --tables fuzz/seeds/tuning-table/*.tsv
# the differential target starts from the cascade seeds and from small
# hand-made files at the corners of OpenCV's XML reading (fuzz/corners/)
mkdir -p "$seeds/cascade-diff"
cp "$seeds/haar-cascade/"* fuzz/corners/cascade-diff/* "$seeds/cascade-diff/"
# past findings, fixed: every run replays them first
for t in haar-cascade tuning-table cascade-diff; do
  [ -d "fuzz/regressions/$t" ] && cp fuzz/regressions/$t/* "$seeds/$t/" 2>/dev/null || true
done

# A finding is any crash, sanitizer report (UBSan stops too) or leak.
export ASAN_OPTIONS=${ASAN_OPTIONS:-detect_leaks=1:abort_on_error=0}
export UBSAN_OPTIONS=${UBSAN_OPTIONS:-halt_on_error=1:print_stacktrace=1}
declare -A max_len=([haar-cascade]=131072 [tuning-table]=32768 [cascade-diff]=65536)
# OpenCV's XML tokens, for mutations that reach its corners (cascade-diff)
declare -A dict=([cascade-diff]=fuzz/cascade.dict [haar-cascade]=fuzz/cascade.dict)
# fuzz_one TARGET: one libFuzzer run; its summary line in $bdir/fuzz-TARGET.result,
# its exit status 1 on a finding
fuzz_one() {
  local t=$1 corpus findings log trc runs speed cov nfind result
  corpus=$bdir/corpus/$t
  findings=$bdir/findings/$t
  # findings of an earlier run are its own: a fixed one belongs in
  # fuzz/regressions/TARGET/ (replayed as a seed above), not in this count
  rm -rf "$findings"
  mkdir -p "$corpus" "$findings"
  log=$bdir/fuzz-$t.log
  echo "fuzzing $t for ${time_s}s (log: $log)"
  set +e
  local dict_arg=()
  [ -n "${dict[$t]:-}" ] && dict_arg=(-dict="${dict[$t]}")
  "$bdir/fuzz/fuzz-$t" "$corpus" "$seeds/$t" -max_total_time="$time_s" -max_len="${max_len[$t]}" \
    "${dict_arg[@]}" -timeout=10 -rss_limit_mb=2048 -print_final_stats=1 -artifact_prefix="$findings/" \
    >"$log" 2>&1
  trc=$?
  set -e
  runs=$(sed -n 's/^stat::number_of_executed_units: *//p' "$log" | tail -1)
  speed=$(sed -n 's/^stat::average_exec_per_sec: *//p' "$log" | tail -1)
  cov=$(grep -o 'cov: [0-9]*' "$log" | tail -1 | cut -d' ' -f2)
  nfind=$(find "$findings" -type f | wc -l)
  result=PASS
  if [ $trc -ne 0 ] || [ "$nfind" -ne 0 ]; then
    result=FAIL
    grep -m5 -E 'ERROR|runtime error|SUMMARY|promise|reader:|readers disagree|ours:|OpenCV:' "$log" || true
  fi
  printf '%-14s %-5s %5ss %10s runs %8s exec/s  coverage %6s  findings %s\n' \
    "$t" "$result" "$time_s" "${runs:-?}" "${speed:-?}" "${cov:-?}" "$nfind" > "$bdir/fuzz-$t.result"
  [ "$result" = PASS ]
}

# The targets run side by side, each for --time seconds of wall time: on a
# machine of fewer cores than targets they share the cores (fewer runs
# each), and the whole takes --time rather than --time per target.
pids=()
for t in "${targets[@]}"; do
  rm -f "$bdir/fuzz-$t.result"
  fuzz_one "$t" &
  pids+=($!)
done
rc=0
for pid in "${pids[@]}"; do
  wait "$pid" || rc=1
done
echo "fuzz summary (libFuzzer + ASan + UBSan, clang $(clang++ -dumpversion), targets side by side on $(nproc) cores):"
for t in "${targets[@]}"; do
  if [ -f "$bdir/fuzz-$t.result" ]; then
    sed 's/^/  /' "$bdir/fuzz-$t.result"
  else
    echo "  $t: no result (the run stopped early)"
    rc=1
  fi
done
exit $rc
