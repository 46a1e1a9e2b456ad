#!/bin/bash
# call 1: base (HEAD) vs new (working tree): build both, tests, memcheck, host time, GPU time
# (as run; its build steps are now docs/measurements/device-lib.sh's, the same commands)
source docs/measurements/device-lib.sh
date
build_trees .wt-lead/base.tar base
tail -3 /tmp/nb.log /tmp/bb.log
date
timeout 200 build-dev/tests/test-gpu-facedetect-gpu --gtest_filter='FaceGpu.WholeFrameInOneGraph' 2>&1 | grep -E "graph|OK|FAIL|Failure|Expected|Which|actual" | head -40
B=/tmp/b/base/build-dev/bench; N=build-dev/bench
for r in 1 2; do
 for t in B N; do eval D=\$$t
  for ch in "cudafacedetect latency-frames=1" "cudafacedetect latency-frames=1 post-messages=false"; do
   echo "== round $r tree $t chain $ch"
   timeout 100 $D/cudavision-streams --pipelines 1 --sizes 1280x720,1920x1080 --frames 600 --chain "$ch" 2>&1 | grep -A8 "host time per frame" | grep -E "^\|" 
  done
 done
done
date
for t in B N; do eval D=\$$t; echo "== face bench $t"
 timeout 100 $D/cudavision-bench-face --images portraits,noise --sizes 640x480,1280x720,1920x1080,3840x2160 --frames 31 --modes static 2>&1 | tail -30
done
date
for t in B N; do eval D=\$$t; echo "== ncu sort $t"
 timeout 120 ncu --metrics gpu__time_duration.sum --csv -k regex:"RadixSort|reset_kernel|publish_kernel|done_kernel|copy_args|init_kernel|unite_kernel|roots_kernel|decode_kernel" $D/cudavision-bench-face --images portraits --sizes 1920x1080,640x480 --frames 2 --modes static 2>/dev/null | grep -v "^==" | awk -F'","' '{print $5" | "$(NF)}' | sed 's/"//g' | cut -c1-150 | sort | uniq -c | head -40
done
date
date
timeout 170 meson test -C build-dev --suite gpu facedetect-gpu held-results-gpu --print-errorlogs --num-processes 2 2>&1 | tail -8
date
