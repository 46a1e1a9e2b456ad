#!/bin/bash
# call 5: session start (624f2d8) vs final tree; the GPU suite
# (as run; its build steps are now docs/measurements/device-lib.sh's, the same commands)
source docs/measurements/device-lib.sh
date
build_trees .wt-lead/base.tar base
nvidia-smi --query-gpu=name --format=csv,noheader
date
B=/tmp/b/base/build-dev/bench; N=build-dev/bench
for r in 1 2; do for t in B N; do eval D=\$$t; echo "== face bench r$r $t"
 timeout 100 $D/cudavision-bench-face --images portraits,noise --sizes 640x480,1280x720,1920x1080,3840x2160 --frames 31 --modes static 2>&1 | tail -8
done; done
date
run () { timeout 60 $1/cudavision-streams --pipelines 1 --sizes 1280x720,1920x1080 --frames 600 --chain "$2" 2>&1 | grep -E "paced|^STREAMS" | sed 's/host time per frame.*//;s/devices=0 //;s/speedup=1.00 //' | tr '\n' ' '; echo; }
for r in 1 2; do for t in B N; do eval D=\$$t
  for ch in "cudafacedetect latency-frames=1" "cudafacedetect latency-frames=1 post-messages=false" "cudafacedetect"; do
   echo -n "r$r $t [$ch] "; run $D "$ch"
  done; done; done
date
timeout 280 meson test -C build-dev --suite gpu --print-errorlogs --num-processes 4 2>&1 | tail -30
date
