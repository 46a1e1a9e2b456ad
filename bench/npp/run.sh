#!/usr/bin/env bash
# Builds and runs the NPP baselines on a GPU machine (CUDA toolkit with NPP
# at ${CUDA_HOME:-/usr/local/cuda}). Each baseline is its own program, so
# one NPP signature change costs one line of the report, not all of them.
# Usage: bench/npp/run.sh [--sizes WxH,...] [OUTDIR]
#   OUTDIR   where the programs and build logs go (kept); default a fresh
#            temporary directory, removed at the end
#   --sizes  frame sizes, passed to every program (default theirs:
#            1280x720,1920x1080,3840x2160, as cudavision-bench-kernels);
#            npp_canny reads the photographs cudavision-bench-kernels left
#            scaled to each size (bench/canny_frame.h): run that first, with
#            the same sizes and CUDAVISION_CANNY_FRAMES.
# The programs are compiled side by side (nvcc is most of the time), then
# run one after another, so that no two share the GPU.
cd "$(dirname "$0")/../.." || exit 2
cuda=${CUDA_HOME:-/usr/local/cuda}
sizes=() out=""
while [ $# -gt 0 ]; do
  case $1 in
    --sizes) [ $# -ge 2 ] || { echo "--sizes needs a value" >&2; exit 2; }; sizes=(--sizes "$2"); shift 2 ;;
    -h|--help) sed -n '2,/^cd /p' "$0" | sed '$d; s/^# \{0,1\}//'; exit 0 ;;
    -*) echo "unknown option $1 (--help)" >&2; exit 2 ;;
    *) out=$1; shift ;;
  esac
done
# the programs are built and run from OUTDIR: by default a fresh private
# directory (mktemp -d), never a fixed path another user could have made
if [ -z "$out" ]; then
  out=$(mktemp -d "${TMPDIR:-/tmp}/cudavision-npp.XXXXXX") || exit 2
  trap 'rm -rf "$out"' EXIT
fi
mkdir -p "$out" || exit 2
common="bench/bench_util.cpp cuda/common/cuda_raii.cpp cuda/common/cuda_check.cpp"
progs=(bench/npp/npp_*.cu)
for prog in "${progs[@]}"; do
  name=$(basename "$prog" .cu)
  ( "$cuda/bin/nvcc" -std=c++17 -O3 -arch=sm_90 -Icuda "$prog" $common -o "$out/$name" \
      -L"$cuda/lib64" -lnppc -lnppicc -lnppif -lnppist -lnppig -lnppial > "$out/$name.build.log" 2>&1
    echo $? > "$out/$name.build.rc" ) &
done
wait
for prog in "${progs[@]}"; do
  name=$(basename "$prog" .cu)
  if [ "$(cat "$out/$name.build.rc" 2>/dev/null)" = 0 ]; then
    "$out/$name" "${sizes[@]}"
  else
    echo "NPP $name: build failed ($(grep -m1 error "$out/$name.build.log"))"
  fi
done
