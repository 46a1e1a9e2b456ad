#!/usr/bin/env bash
# Shi-Tomasi corners drawn on a video.
#
#   filesrc ! qtdemux ! h264parse ! avdec_h264   decode the bundled clip (a handheld pan)
#   ! videoconvert ! video/x-raw,format=RGBA     cudaharris draws on RGBA / BGRA / RGBx / BGRx
#   ! cudaharris method=shi-tomasi               cv::goodFeaturesToTrack's corners ...
#       max-corners=150 min-distance=8
#       draw=true                                ... drawn as red crosses
#   ! videoconvert ! pngenc ! multifilesink      corners-00000.png, ...
#
# Every buffer leaving cudaharris also carries the corners as a
# GstCvKeypointsMeta (see examples/c/ for reading it in an application).
# Watch the crosses follow the leaves and the window frame as the camera
# pans: that is what cudaflow tracks (examples/launch/flow-tracks.sh).
#
# Examples:
#   examples/launch/corners-video.sh
#   examples/launch/corners-video.sh --mp4
#   examples/launch/corners-video.sh --cpu --num-buffers 5   # what the test runs
set -euo pipefail
. "$(dirname "$0")/common.sh"
cv_video_source
cv_video_sink corners
cv_run "${SOURCE[@]}" ! videoconvert ! video/x-raw,format=RGBA ! \
  cudaharris method=shi-tomasi max-corners=150 min-distance=8 draw=true $BK ! "${SINK[@]}"
cv_report
