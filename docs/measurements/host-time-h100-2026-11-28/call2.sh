#!/bin/bash
# call 2 (2026-11-28): timer build of cudafacedetect's paced frame (.wt-lead/timer.tar: the new tree with
# step-timers.patch, git archive --prefix=timer/); GPU tests of the examples and oom-gpu
# (as run; its build steps are now device-lib.sh's, the same commands)
source docs/measurements/device-lib.sh
date
build_trees .wt-lead/timer.tar timer
date
T=/tmp/b/timer/build-dev/bench
for ch in "cudafacedetect latency-frames=1" "cudafacedetect latency-frames=1 post-messages=false"; do
  for sz in 1280x720 1920x1080; do
    echo "== timer [$ch] $sz"
    timeout 90 $T/cudavision-streams --pipelines 1 --sizes $sz --frames 600 --paced-rounds 3 --chain "$ch" 2>&1 | grep -E "^OVERHEAD |^STEP|error"
  done
done
date
tests="oom-gpu gpu-launch-otsu-document gpu-launch-corners-video gpu-launch-edges-video gpu-launch-flow-tracks gpu-launch-faces-video gpu-embed-c"
meson test -C build-dev --list 2>/dev/null | grep -q gpu-embed-python && tests="$tests gpu-embed-python"
echo "tests: $tests"
timeout 240 meson test -C build-dev --print-errorlogs --num-processes 4 $tests 2>&1 | tail -15
date
