#!/bin/bash
# call 3 (2026-11-28): the final tree: paced host time, the GPU suite
# (as run; its build steps and the paced run's line are now device-lib.sh's, the same commands)
source docs/measurements/device-lib.sh
date
build_trees
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
date
paced_runs 2 build-dev/bench "cudafacedetect latency-frames=1" "cudafacedetect latency-frames=1 post-messages=false" \
    "cudagray ! cudablur"
date
timeout 420 meson test -C build-dev --suite gpu --print-errorlogs --num-processes 4 2>&1 | grep -E "^ *[0-9]+/[0-9]+ |Ok:|Fail:|Skipped:|Timeout:"
date
