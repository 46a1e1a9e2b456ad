#!/bin/bash
# call 7 (2026-11-28): paced host time after a camera's gap: cudavision-streams --paced-gap-us 0, 1000, 33333
# (as run; its host lines are now device-lib.sh's host_info, the same commands)
source docs/measurements/device-lib.sh
date
build_trees
host_info
date
for gap in 0 1000 33333; do
  for ch in "cudagray ! cudablur" "cudafacedetect latency-frames=1" "cudafacedetect latency-frames=1 post-messages=false"; do
    echo -n "gap $gap [$ch] "
    timeout 150 build-dev/bench/cudavision-streams --pipelines 1 --sizes 1280x720,1920x1080 --frames 200 --paced-rounds 3 \
        --paced-gap-us $gap --chain "$ch" 2>&1 | grep -E "^OVERHEAD |error" | sed 's/pipelines=1 //' | tr '\n' ' '
    echo
  done
done
date
