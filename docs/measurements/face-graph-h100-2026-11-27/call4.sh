#!/bin/bash
# call 4: session start (624f2d8) vs working tree (16-node graph, no event node)
date
rm -rf /tmp/b; mkdir -p /tmp/b && tar xf .wt-lead/base.tar -C /tmp/b && cp .devbundle.tgz /tmp/b/base/
( cd /tmp/b/base && timeout 300 tools/gpu-check.sh --bundle --only build --builddir build-dev --out /tmp/gcb > /tmp/bb.log 2>&1; echo BASEBUILD $? ) &
BP=$!
timeout 300 tools/gpu-check.sh --bundle --only build --builddir build-dev --out /tmp/gc > /tmp/nb.log 2>&1; echo NEWBUILD $?
wait $BP
source .devbundle/env.sh; mkdir -p /usr/share/opencv4 && cp -r .devbundle/share/opencv4/haarcascades /usr/share/opencv4/ 2>/dev/null
date
timeout 150 build-dev/tests/test-gpu-facedetect-gpu --gtest_filter='FaceGpu.WholeFrameInOneGraph' 2>&1 | grep -E "graph|OK|FAIL|Failure|Expected|Which|actual" | head -20
B=/tmp/b/base/build-dev/bench; N=build-dev/bench
run () { timeout 60 $1/cudavision-streams --pipelines 1 --sizes 1280x720,1920x1080 --frames 600 --chain "$2" 2>&1 | grep -E "paced|^STREAMS" | sed 's/host time per frame.*//' | tr '\n' ' '; echo; }
for r in 1 2 3; do for t in B N; do eval D=\$$t
  for ch in "cudafacedetect latency-frames=1" "cudafacedetect latency-frames=1 post-messages=false"; do
   echo -n "r$r $t [$ch] "; run $D "$ch"
  done; done; done
date
for t in B N; do eval D=\$$t; echo "== face bench $t"
 timeout 100 $D/cudavision-bench-face --images portraits,noise --sizes 640x480,1280x720,1920x1080,3840x2160 --frames 31 --modes static 2>&1 | tail -8
done
date
timeout 200 meson test -C build-dev --suite gpu facedetect-gpu held-results-gpu oom-gpu --print-errorlogs --num-processes 3 2>&1 | tail -8
date
timeout 100 compute-sanitizer --tool memcheck --print-limit 20 build-dev/tests/test-gpu-facedetect-gpu --gtest_filter='FaceGpu.WholeFrameInOneGraph' 2>&1 | tail -3
timeout 100 compute-sanitizer --tool memcheck --print-limit 20 build-dev/tests/test-gpu-held-results-gpu 2>&1 | tail -3
date
