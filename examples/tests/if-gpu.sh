#!/usr/bin/env bash
# Runs COMMAND when cudavision can use a GPU here, else exits 77 (skipped):
# the GPU variants of the example tests (suite 'gpu').
#
#   if-gpu.sh COMMAND [ARGS...]
if ! gst-launch-1.0 -q videotestsrc num-buffers=1 ! cudagray backend=cuda ! fakesink > /dev/null 2>&1; then
  echo "skipped: no usable CUDA device (cudagray backend=cuda failed)"
  exit 77
fi
exec "$@"
