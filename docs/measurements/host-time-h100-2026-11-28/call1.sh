#!/bin/bash
# call 1 (2026-11-28): base 707ae4a vs new (bus read by a thread of its own in the benchmarks; face message quarks)
# (as run; its build steps and the paced run's line are now device-lib.sh's, the same commands)
source docs/measurements/device-lib.sh
date
build_trees .wt-lead/base.tar base
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader; nproc; lscpu | grep -i "model name"
date
N=build-dev/bench; B=/tmp/b/base/build-dev/bench
for r in blocking spin none; do echo "== bench-message $r"; timeout 60 $N/cudavision-bench-message --reader $r --messages 1500 | grep -v "^|---"; done
date
for r in 1 2; do for t in B N; do eval D=\$$t
  for ch in "cudafacedetect latency-frames=1" "cudafacedetect latency-frames=1 post-messages=false" "cudagray ! cudablur" "cudagray ! cudaharris latency-frames=1"; do
   echo -n "r$r $t [$ch] "; paced $D "$ch"
  done; done; done
date
echo "== soak (new harness)"
timeout 100 $N/cudavision-soak --frames 3000 --system-frames 1000 2>&1 | grep -E "^SOAK|error"
date
# (gpu-embed-python is not defined on the GPU machine: this meson test stopped at once; call 2 ran the rest)
timeout 170 meson test -C build-dev --print-errorlogs --num-processes 4 oom-gpu gpu-launch-otsu-document gpu-launch-corners-video gpu-launch-edges-video gpu-launch-flow-tracks gpu-launch-faces-video gpu-embed-c gpu-embed-python 2>&1 | tail -15
date
