#!/bin/bash
# call 6 (2026-11-28): the final tree, every element's paced host time, two runs of three rounds
# (as run; its host lines are now device-lib.sh's host_info, the same commands)
source docs/measurements/device-lib.sh
date
build_trees
host_info
date
paced_runs 2 build-dev/bench "cudagray ! cudablur ! cudacanny" "cudagray ! cudaotsu" "cudagray ! cudaharris latency-frames=1" \
    "cudagray ! cudaflow mode=dense latency-frames=1" "cudagray ! cudaflow mode=sparse draw=true latency-frames=1" \
    "cudafacedetect latency-frames=1"
date
