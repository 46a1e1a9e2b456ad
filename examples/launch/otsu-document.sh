#!/usr/bin/env bash
# A document photo binarized with Otsu's threshold.
#
#   filesrc ! decodebin ! videoconvert    decode the photo (sudoku.png; any picture with --input)
#   ! cudagray                            to GRAY8
#   ! cudablur sigma=1                    a light blur keeps paper grain from becoming dots
#   ! cudaotsu post-messages=true         Otsu's threshold of the frame, then 255 above it, 0 below
#   ! videoconvert ! pngenc ! filesink    sudoku-otsu.png
#
# cudaotsu posts the threshold it chose on the bus (gst-launch -m prints bus
# messages; the script shows the cudaotsu one):
#   cudaotsu, timestamp=(guint64)0, ..., threshold=(uint)97;
# The threshold is global, one per frame, as cv::threshold (THRESH_OTSU)
# computes it: the unevenly lit corner of sudoku.png goes partly black,
# which is what Otsu's method does with uneven light.
#
# Examples:
#   examples/launch/otsu-document.sh
#   examples/launch/otsu-document.sh --input tests/data/text.png --out /tmp/otsu
#   examples/launch/otsu-document.sh --cpu                  # what the test runs
set -euo pipefail
. "$(dirname "$0")/common.sh"
input=${INPUT:-$DATA/sudoku.png}
name=$(basename "${input%.*}")-otsu
mkdir -p "$OUT"
rm -f "$OUT/$name.png"
log=$(cv_run -m filesrc "location=$input" ! decodebin ! videoconvert ! cudagray $BK ! cudablur sigma=1 $BK ! \
  cudaotsu post-messages=true $BK ! videoconvert ! pngenc ! filesink "location=$OUT/$name.png") || {
  echo "$log" >&2
  exit 1
}
# The field, not its place in the structure: the timing fields come first.
echo "$log" | sed -n 's/.*cudaotsu, .*threshold=(uint)\([0-9]*\).*/Otsu threshold: \1/p'
echo "wrote $OUT/$name.png"
