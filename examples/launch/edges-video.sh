#!/usr/bin/env bash
# Edges of a video, written to files.
#
#   filesrc ! qtdemux ! h264parse ! avdec_h264    decode the bundled clip (CPU)
#   ! cudagray                                    I420 in, GRAY8 out: the Y plane
#   ! cudablur sigma=1.4                          smooth first, as one does before Canny
#   ! cudacanny                                   Canny edges, thresholds 50 / 150 (cv::Canny's)
#   ! videoconvert ! pngenc ! multifilesink       edges-00000.png, edges-00001.png, ...
#
# The frames are uploaded once (at cudagray) and stay on the GPU through
# cudablur and cudacanny; only the edge maps come back, for the PNG
# encoder. With --cpu every cudavision element runs on OpenCV instead
# (cv::cvtColor, cv::GaussianBlur, cv::Canny) and nothing needs a GPU.
#
# Variations: `cudacanny blur-sigma=1.4` fuses the blur into the detector
# (no cudablur); `cudacanny auto-threshold=median` (or `otsu`) derives the
# thresholds from each frame, useful when the lighting changes.
#
# Examples:
#   examples/launch/edges-video.sh                         # PNGs in demo-output/examples/
#   examples/launch/edges-video.sh --mp4 --input my.mov    # any video decodebin reads, to an MP4
#   examples/launch/edges-video.sh --cpu --num-buffers 5   # what the test runs
set -euo pipefail
. "$(dirname "$0")/common.sh"
cv_require cudacanny
cv_video_source
cv_video_sink edges
cv_run "${SOURCE[@]}" ! videoconvert ! cudagray $BK ! cudablur sigma=1.4 $BK ! cudacanny $BK ! "${SINK[@]}"
cv_report
