#!/usr/bin/env bash
# Optical-flow tracks drawn on a video.
#
#   filesrc ! qtdemux ! h264parse ! avdec_h264   decode the bundled clip (a handheld pan)
#   ! videoconvert ! video/x-raw,format=RGBA     cudaflow draws on colour frames
#   ! cudaflow draw=true                         sparse pyramidal Lucas-Kanade
#                                                (cv::calcOpticalFlowPyrLK) on Shi-Tomasi
#                                                corners, re-detected as tracks are lost;
#                                                a red cross at each tracked point, a green
#                                                line to it from where it was one frame earlier
#   ! videoconvert ! pngenc ! multifilesink      flow-00000.png, ...
#
# cudaflow keeps the previous frame's pyramid on the GPU, so the first
# frame has no tracks; from the second on, every buffer carries the point
# pairs as a meta (gst/cudavision/gstcvflowmeta.h). The lines are one frame of motion:
# a few pixels in this slow pan. With --cpu the element runs OpenCV's
# calcOpticalFlowPyrLK. `cudaflow mode=dense output=flow-color` shows the
# motion of every grid cell as a colour instead (hue = direction).
#
# Examples:
#   examples/launch/flow-tracks.sh
#   examples/launch/flow-tracks.sh --mp4 --input my-camera-clip.mp4
#   examples/launch/flow-tracks.sh --cpu --num-buffers 5   # what the test runs
set -euo pipefail
. "$(dirname "$0")/common.sh"
cv_require cudaflow
cv_video_source
cv_video_sink flow
cv_run "${SOURCE[@]}" ! videoconvert ! video/x-raw,format=RGBA ! cudaflow draw=true $BK ! "${SINK[@]}"
cv_report
