#!/bin/bash
# call 4 (2026-11-28), and call 5 on a fresh machine: the final tree's host: its CPU, the bus's cost, paced host time
# (as run; its steps are now device-lib.sh's, the same commands, but the paced lines then left out STREAMS)
source docs/measurements/device-lib.sh
date
build_trees
nvidia-smi --query-gpu=name,driver_version,pci.bus_id --format=csv,noheader
lscpu | grep -E "Model name|^CPU\(s\)|MHz|L2|L3|Hypervisor|Thread|Socket|NUMA node\(s\)|Flags" | sed 's/Flags:.*\(avx512f\).*/Flags: has avx512f/'
grep -m1 "model\s*:" /proc/cpuinfo; grep -m1 "cpu family" /proc/cpuinfo; uptime
date
timeout 60 build-dev/bench/cudavision-bench-message --reader blocking --messages 1500 | grep -v "^|---"
paced_runs 2 build-dev/bench "cudafacedetect latency-frames=1" "cudafacedetect latency-frames=1 post-messages=false" \
    "cudagray ! cudablur"
date
