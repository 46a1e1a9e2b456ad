#!/bin/bash
# call 3: memcheck on the changed kernels; paced host time base vs new, with and without deep C-states held off
# (as run; its build steps are now docs/measurements/device-lib.sh's, the same commands)
source docs/measurements/device-lib.sh
date
if [ ! -x build-dev/bench/cudavision-streams ] || [ ! -x /tmp/b/base/build-dev/bench/cudavision-streams ]; then
build_trees .wt-lead/base.tar base
else
use_bundle
fi
nproc; lscpu | grep -E "Model name|Thread|Core|Socket|MHz" ; cat /sys/devices/system/cpu/cpu0/cpuidle/state*/name 2>/dev/null | tr '\n' ' '; echo; ls -la /dev/cpu_dma_latency
date
B=/tmp/b/base/build-dev/bench; N=build-dev/bench
run () { timeout 60 $1/cudavision-streams --pipelines 1 --sizes 1280x720,1920x1080 --frames 600 --chain "$2" 2>&1 | grep -E "paced" | tr '\n' ' '; echo; }
for mode in free held; do
 if [ $mode = held ]; then python3 -c "
import os,time,struct
f=os.open('/dev/cpu_dma_latency',os.O_WRONLY); os.write(f,struct.pack('i',0)); time.sleep(100)" & HP=$!; sleep 1; fi
 for r in 1 2; do for t in B N; do eval D=\$$t
  for ch in "cudafacedetect latency-frames=1" "cudafacedetect latency-frames=1 post-messages=false" "cudagray"; do
   echo -n "$mode r$r $t [$ch] "; run $D "$ch"
  done; done; done
 [ $mode = held ] && kill $HP
done
date
timeout 240 compute-sanitizer --tool memcheck --print-limit 20 build-dev/tests/test-gpu-facedetect-gpu --gtest_filter='FaceGpu.WholeFrameInOneGraph:FaceGpu.ManyWindowsGrowTheList' 2>&1 | tail -6
date
