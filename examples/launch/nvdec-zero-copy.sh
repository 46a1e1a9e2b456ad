#!/usr/bin/env bash
# Zero-copy from the GPU's video decoder into cudavision, with its speed.
#
#   filesrc ! qtdemux ! h264parse        read the H.264 stream (CPU: bytes only)
#   ! nvh264dec                          NVDEC decodes into GPU memory: memory:CUDAMemory NV12
#   ! cudagray                           reads the decoder's frame in place (the Y plane)
#   ! cudacanny                          edges, frame in memory:CudaVisionMemory
#   ! fpsdisplaysink video-sink=fakesink text-overlay=false sync=false
#                                        counts frames; fakesink never maps them, so
#                                        nothing is downloaded either
#
# No frame crosses to the host: the compressed bitstream goes to NVDEC, the
# decoded frames stay in device memory from nvh264dec to the sink. gst-launch
# -v prints the negotiated caps; the script checks that nvh264dec ->
# cudagray is memory:CUDAMemory and cudagray -> cudacanny is
# memory:CudaVisionMemory (a system-memory link would have no caps feature
# and would cost an upload or a download per frame) and fails otherwise.
#
# Then it prints fpsdisplaysink's last measurement (frames rendered so far
# and the average frames per second since the first frame, which leaves out
# CUDA and decoder start-up) and the wall time of the whole run. The bundled
# clip is 36 frames of 320x240, over in a few milliseconds: use --input with
# a longer H.264 MP4 (1080p, 4K) to measure. Figures measured on the GPU machine: docs/PERFORMANCE.md.
#
# Needs an NVIDIA GPU and gst-plugins-bad's nvcodec (nvh264dec); exits 77
# (skipped) without them. --cpu is accepted but defeats the purpose: the CPU
# backend maps the frames on the host (one download per frame).
#
# Examples:
#   examples/launch/nvdec-zero-copy.sh
#   examples/launch/nvdec-zero-copy.sh --input /data/4k-h264.mp4
set -euo pipefail
. "$(dirname "$0")/common.sh"
cv_require nvh264dec cudacanny fpsdisplaysink
input=${INPUT:-$DATA/realshort.mp4}
mkdir -p "$OUT"
log="$OUT/nvdec-zero-copy.log"
cv_run -v filesrc "location=$input" ! qtdemux ! h264parse ! nvh264dec ! identity "eos-after=$NUM_BUFFERS" ! \
  cudagray name=gray $BK ! cudacanny name=canny $BK ! \
  fpsdisplaysink name=fps video-sink=fakesink text-overlay=false sync=false signal-fps-measurements=true \
  fps-update-interval=100 > "$log" 2>&1 || {
  cat "$log" >&2
  exit 1
}
echo "full log: $log"

# The caps each of our sink pads accepted.
gray_caps=$(grep -m1 ':gray.GstPad:sink: caps' "$log" || true)
canny_caps=$(grep -m1 ':canny.GstPad:sink: caps' "$log" || true)
echo "nvh264dec -> cudagray: ${gray_caps#*caps = }"
echo "cudagray -> cudacanny: ${canny_caps#*caps = }"
ok=1
case "$gray_caps" in *memory:CUDAMemory*) ;; *) ok=0 ;; esac
case "$canny_caps" in *memory:CudaVisionMemory*) ;; *) ok=0 ;; esac
if [ $ok = 1 ]; then
  echo "zero-copy: yes (device memory from the decoder to the sink)"
else
  echo "zero-copy: NO -- a link above is in system memory" >&2
fi

# fpsdisplaysink -v: "rendered: N, dropped: D, current: C, average: A", every
# fps-update-interval (100 ms) from the first frame on.
last=$(grep 'last-message = rendered' "$log" | tail -1 | sed 's/.*last-message = //' || true)
elapsed=$(grep -o 'Execution ended after [0-9:.]*' "$log" | awk '{print $4}' || true)
if [ -n "$last" ]; then
  echo "fpsdisplaysink (last measurement): $last"
else
  echo "fpsdisplaysink: no measurement, the run was shorter than 100 ms: use a longer clip (--input)"
fi
echo "wall time of the whole run (start-up included): ${elapsed:-unknown}"
[ $ok = 1 ]
