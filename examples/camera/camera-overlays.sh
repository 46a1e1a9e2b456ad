#!/usr/bin/env bash
# A camera feed with faces and corners drawn, on screen or as an RTP stream.
#
#   v4l2src device=/dev/video0 ! decodebin   the camera when there is one (640x480);
#     or the bundled clip, looped            otherwise realshort.mp4, over and over (320x240)
#   ! videoconvert ! videoscale ! video/x-raw,format=RGBA,width=W,height=H
#   ! cudafacedetect draw=true               faces boxed (when the element is built)
#   ! cudaharris method=shi-tomasi           corners as red crosses (the boxes' own
#         max-corners=100 draw=true          corners get crosses too: they are corners)
#   ! videoconvert ! autovideosink           on screen, or with --udp:
#   ! videoconvert ! video/x-raw,format=RGB ! rtpvrawpay ! udpsink host=127.0.0.1 port=5000
#
# Raw RTP video (RFC 4175) keeps the drawn pixels exact and needs no
# encoder. Receive it, on this machine, with (W x H as the script prints):
#
#   gst-launch-1.0 udpsrc port=5000 buffer-size=4194304 \
#     caps="application/x-rtp,media=video,clock-rate=90000,encoding-name=RAW,sampling=RGB,depth=(string)8,width=(string)320,height=(string)240" \
#     ! rtpvrawdepay ! videoconvert ! autovideosink
#
# Start the receiver first (UDP has no connection: packets sent before it
# listens are lost). Raw video is about 7 MB/s at 320x240 and 28 MB/s at
# 640x480: fine on localhost, too much for most networks (put an encoder,
# e.g. nvh264enc ! rtph264pay, there instead).
#
# Options, besides the common ones (--cpu, --num-buffers N, --input FILE):
#   --udp         stream to 127.0.0.1 instead of a window
#   --port P      UDP port (5000)
#   --file        use the clip even when a camera exists
#   --device DEV  camera device (/dev/video0)
#   --loops N     play the clip N times (default: until Ctrl-C; 1 with --num-buffers)
#
# Examples:
#   examples/camera/camera-overlays.sh
#   examples/camera/camera-overlays.sh --udp
#   examples/camera/camera-overlays.sh --udp --num-buffers 10 --cpu   # what the test runs
set -euo pipefail
cv_usage_extra="[--udp] [--port P] [--file] [--device DEV] [--loops N]"
. "$(dirname "$0")/../launch/common.sh"
udp="" port=5000 device=/dev/video0 force_file="" loops=""
set -- "${CV_EXTRA_ARGS[@]+"${CV_EXTRA_ARGS[@]}"}"
while [ $# -gt 0 ]; do
  case "$1" in
    --udp) udp=1 ;;
    --port) port=${2:?--port needs a number}; shift ;;
    --file) force_file=1 ;;
    --device) device=${2:?--device needs a path}; shift ;;
    --loops) loops=${2:?--loops needs a count}; shift ;;
    *) echo "unknown option: $1 (see --help)" >&2; exit 2 ;;
  esac
  shift
done

if [ -z "$force_file" ] && [ -z "$INPUT" ] && [ -e "$device" ]; then
  echo "source: camera $device"
  w=640 h=480
  # decodebin: raw cameras pass through, MJPEG-only ones are decoded
  SOURCE=(v4l2src "device=$device" ! decodebin ! identity "eos-after=$NUM_BUFFERS")
  loops=1
else
  w=320 h=240
  cv_video_source  # the clip (or --input), limited to --num-buffers frames
  echo "source: ${INPUT:-$DATA/realshort.mp4} (no camera at $device, or --file)"
  if [ -z "$loops" ]; then
    if [ "$NUM_BUFFERS" = -1 ]; then loops=0; else loops=1; fi   # 0: until Ctrl-C
  fi
fi

OVERLAYS=()
if cv_have cudafacedetect; then
  OVERLAYS+=(cudafacedetect draw=true $BK !)
else
  echo "faces: cudafacedetect is not available yet, drawing corners only"
fi
OVERLAYS+=(cudaharris method=shi-tomasi max-corners=100 draw=true $BK)

if [ -n "$udp" ]; then
  SINK=(videoconvert ! video/x-raw,format=RGB ! rtpvrawpay ! udpsink host=127.0.0.1 "port=$port")
  echo "streaming RTP raw video ${w}x${h} RGB to 127.0.0.1:$port; receive with:"
  echo "  gst-launch-1.0 udpsrc port=$port buffer-size=4194304 caps=\"application/x-rtp,media=video,clock-rate=90000,encoding-name=RAW,sampling=RGB,depth=(string)8,width=(string)$w,height=(string)$h\" ! rtpvrawdepay ! videoconvert ! autovideosink"
else
  SINK=(videoconvert ! autovideosink)
fi

# A clip is played as a camera would deliver it: in real time (the sinks
# sync to the clock), over and over. Each pass is a new pipeline; a camera
# stream runs once, until Ctrl-C or --num-buffers.
trap 'echo; exit 130' INT   # Ctrl-C ends the loop, not only the current pass
pass=0
while [ "$loops" = 0 ] || [ $pass -lt "$loops" ]; do
  cv_run "${SOURCE[@]}" ! videoconvert ! videoscale ! "video/x-raw,format=RGBA,width=$w,height=$h" ! \
    "${OVERLAYS[@]}" ! "${SINK[@]}"
  pass=$((pass + 1))
done
