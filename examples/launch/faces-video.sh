#!/usr/bin/env bash
# Faces boxed on a video.
#
#   (a video: --input FILE, decoded by decodebin;
#    by default the bundled portrait astronaut.png held for 3 s by imagefreeze,
#    since the bundled clip has no face in it)
#   ! videoconvert ! video/x-raw,format=RGBA      detection runs on the luma, boxes are drawn in colour
#   ! cudafacedetect draw=true                    Viola-Jones with OpenCV's frontal-face Haar cascade
#         post-messages=true                      (/usr/share/opencv4/haarcascades/), scale 1.1,
#                                                 min-neighbors 3, as cv::CascadeClassifier
#   ! videoconvert ! pngenc ! multifilesink       faces-00000.png, ...
#
# Each face is also a GstVideoRegionOfInterestMeta of type "face" on the
# buffer, and with post-messages=true a "facedetect" element message (shaped
# like gst-plugins-bad's facedetect: a "faces" list of x, y, width, height)
# goes to the bus; the script prints the first one.
#
# Examples:
#   examples/launch/faces-video.sh
#   examples/launch/faces-video.sh --input my-video.mp4 --mp4
#   examples/launch/faces-video.sh --cpu --num-buffers 3   # what the test runs
set -euo pipefail
. "$(dirname "$0")/common.sh"
cv_require cudafacedetect
if [ -n "$INPUT" ]; then
  cv_video_source
else
  frames=$NUM_BUFFERS
  [ "$frames" = -1 ] && frames=90
  SOURCE=(filesrc "location=$DATA/astronaut.png" ! decodebin ! imagefreeze "num-buffers=$frames" !
    video/x-raw,framerate=30/1)
fi
cv_video_sink faces
log=$(cv_run -m "${SOURCE[@]}" ! videoconvert ! video/x-raw,format=RGBA ! \
  cudafacedetect draw=true post-messages=true $BK ! "${SINK[@]}") || {
  echo "$log" >&2
  exit 1
}
echo "$log" | grep -m1 '(element): facedetect' | sed 's/.*(element): /first message: /' || true
cv_report
