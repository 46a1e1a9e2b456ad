#!/usr/bin/env bash
# Builds and runs the NPP baselines on a GPU machine (CUDA toolkit with NPP
# at ${CUDA_HOME:-/usr/local/cuda}). Each baseline is its own program, so
# one NPP signature change costs one line of the report, not all of them.
# Usage: bench/npp/run.sh [OUTDIR]
cd "$(dirname "$0")/../.."
cuda=${CUDA_HOME:-/usr/local/cuda}
out=${1:-/tmp/cudavision-npp}
mkdir -p "$out"
common="bench/bench_util.cpp cuda/common/cuda_raii.cpp cuda/common/cuda_check.cpp"
for prog in bench/npp/npp_*.cu; do
  name=$(basename "$prog" .cu)
  if "$cuda/bin/nvcc" -std=c++17 -O3 -arch=sm_90 -Icuda "$prog" $common -o "$out/$name" \
      -L"$cuda/lib64" -lnppc -lnppicc -lnppif -lnppist -lnppig -lnppial > "$out/$name.build.log" 2>&1; then
    "$out/$name"
  else
    echo "NPP $name: build failed ($(grep -m1 error "$out/$name.build.log"))"
  fi
done
