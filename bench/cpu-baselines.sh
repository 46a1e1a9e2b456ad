#!/usr/bin/env bash
# CPU baselines through GStreamer (issues 4 and 6): gst-plugins-bad's
# OpenCV elements `edgedetect` and `facedetect` next to our `cudacanny` and
# `cudafacedetect` with backend=cpu, on the same frames, in the same
# gst-launch-1.0 pipelines, on this machine. No GPU is used or needed.
#
# How a measurement is taken:
#   frames   a bundled picture (tests/data), decoded, cropped to the target
#            aspect ratio, converted and scaled once, then repeated by
#            `imagefreeze num-buffers=N` (real content, no videotestsrc);
#   timing   `gst-launch-1.0 SOURCE ! ELEMENT ! fakesink sync=false` and the
#            same pipeline without ELEMENT; the time is gst-launch's
#            "Execution ended after" (PLAYING to EOS: no process start, no
#            plugin or cascade loading). The first frame goes through during
#            preroll, before that clock starts, so a run times N-1 frames.
#            Per frame = (median with ELEMENT - median without) / (N-1), over
#            --reps rounds; each round runs every compared pipeline of a size
#            without and with its element in turn, so that a change in the
#            machine's speed (other jobs on shared cores) hits all alike.
#            "vs" = a row's time / gst-plugins-bad's element's, same size.
#   work     edges: colour (RGB) in, edges out, thresholds 50/150, Sobel
#            aperture 3, L1 norm, no pre-blur:
#              edgedetect mask=false (RGB in, cv::cvtColor RGB2GRAY,
#                cv::Canny, edges written back as RGB)
#              cudagray backend=cpu ! cudacanny backend=cpu (RGB in, GRAY8
#                edges out; both elements counted)
#              cudacanny backend=cpu alone on GRAY8 frames (for reference)
#            faces: colour in, faces out as bus messages, frontal default
#            cascade, scale 1.1, min-neighbors 3, smallest face = the
#            cascade's 24x24 window, nothing drawn, no histogram
#            equalization (facedetect does none either):
#              facedetect (RGB in-place; eye/nose/mouth cascades pointed at a
#                missing file so that they are off; flags=0)
#              cudafacedetect backend=cpu (RGBx; draw=false)
#   boxes    each face detector once on astronaut.png, grace_hopper.jpg,
#            iceblock.jpg (native size) and on the timing frames, with
#            `gst-launch-1.0 -m`; the faces of its bus message are matched
#            by IoU.
#
# Usage: bench/cpu-baselines.sh [--frames N] [--face-frames N] [--reps R]
#                               [--sizes WxH,...] [--face-sizes WxH,...]
#                               [--out DIR]
#   --frames N        edge frames per run at 1920x1080 (default 40); other
#                     sizes get N scaled by the pixel count, at least 5
#   --face-frames N   face frames per run at 1920x1080 (default 6), scaled alike
#   --reps R          runs of each pipeline (default 5); the median is used
#   --sizes LIST      edge-detection sizes (default 1920x1080,3840x2160)
#   --face-sizes LIST face-detection sizes (default 640x480,1920x1080)
#   --out DIR         logs and results.md (default demo-output/cpu-baselines)
#   With the defaults a run takes about 3 minutes on 2 cores.
#
# The plugin: GST_PLUGIN_PATH when set, else the first build*/gst holding
# libgstcudavision.so. Needs gstreamer1.0-opencv (edgedetect, facedetect),
# opencv-data (the cascade) and the base/good plugins (imagefreeze,
# videocrop, videoscale, pngdec, jpegdec). Exit status: 0 done, 1 failed,
# 2 bad usage, 77 an element is missing.
set -euo pipefail

ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
DATA="$ROOT/tests/data"
CASCADE=/usr/share/opencv4/haarcascades/haarcascade_frontalface_default.xml
FRAMES=40
FACE_FRAMES=6
REPS=5
SIZES=1920x1080,3840x2160
FACE_SIZES=640x480,1920x1080
OUT="$ROOT/demo-output/cpu-baselines"

usage () {
  sed -n '2,/^set -/p' "$0" | sed -n 's/^# \{0,1\}//p'
}

count_arg () {
  case "$2" in
    ''|*[!0-9]*|0) echo "$1: not a positive count: $2" >&2; exit 2 ;;
  esac
}

while [ $# -gt 0 ]; do
  case "$1" in
    --frames) FRAMES=${2:?--frames needs a value}; count_arg "$1" "$2"; shift ;;
    --face-frames) FACE_FRAMES=${2:?--face-frames needs a value}; count_arg "$1" "$2"; shift ;;
    --reps) REPS=${2:?--reps needs a value}; count_arg "$1" "$2"; shift ;;
    --sizes) SIZES=${2:?--sizes needs a list}; shift ;;
    --face-sizes) FACE_SIZES=${2:?--face-sizes needs a list}; shift ;;
    --out) OUT=${2:?--out needs a directory}; shift ;;
    -h|--help) usage; exit 0 ;;
    *) echo "unknown option: $1" >&2; usage >&2; exit 2 ;;
  esac
  shift
done
for s in ${SIZES//,/ } ${FACE_SIZES//,/ }; do
  case "$s" in
    [1-9]*x[1-9]*) ;;
    *) echo "not a size WxH: $s" >&2; exit 2 ;;
  esac
done

# The plugin from the build tree when no path is set.
CV_ROOT=$ROOT
. "$ROOT/tools/plugin-path.sh"

for e in edgedetect facedetect cudagray cudacanny cudafacedetect imagefreeze videocrop \
    videoscale videoconvert pngdec jpegdec fakesink; do
  # --atleast-version=0.0: cudavision is version 0.1, below GStreamer's own.
  if ! gst-inspect-1.0 --exists --atleast-version=0.0 "$e"; then
    echo "skipped: element '$e' is not available" >&2
    exit 77
  fi
done
[ -r "$CASCADE" ] || { echo "skipped: no cascade $CASCADE (opencv-data)" >&2; exit 77; }

mkdir -p "$OUT/logs"
RESULTS="$OUT/results.md"
: > "$OUT/logs/runs.txt"
: > "$RESULTS"
say () { printf '%s\n' "$*" | tee -a "$RESULTS"; }

# frames_for BASE WxH: BASE frames at 1920x1080 scaled by the pixel count, at least 5.
frames_for () {
  local w=${2%x*} h=${2#*x}
  awk -v b="$1" -v p="$((w * h))" 'BEGIN { n = int (b * 1920 * 1080 / p + 0.5); print (n < 5 ? 5 : n) }'
}

# seconds LOG: gst-launch's "Execution ended after H:MM:SS.NNNNNNNNN" in seconds.
seconds () {
  local t
  t=$(sed -n 's/^Execution ended after \([0-9:.]*\)$/\1/p' "$1" | tail -n 1)
  [ -n "$t" ] || { echo "no execution time in $1" >&2; return 1; }
  awk -F: -v t="$t" 'BEGIN { split (t, a, ":"); printf "%.9f\n", a[1] * 3600 + a[2] * 60 + a[3] }'
}

# launch LOG ARGS...: gst-launch-1.0 ARGS > LOG, failing on a pipeline error.
launch () {
  local log=$1
  shift
  echo "gst-launch-1.0 $*" > "$log"
  if ! gst-launch-1.0 "$@" >> "$log" 2>&1 || grep -q '^ERROR' "$log"; then
    echo "pipeline failed, see $log:" >&2
    tail -n 5 "$log" >&2
    return 1
  fi
}

median () { sort -g | awk '{ v[NR] = $1 } END { print (NR % 2 ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2) }'; }

# Source chains. The picture is cropped to the target's aspect ratio first
# (so nothing is stretched), then converted and scaled once; imagefreeze
# repeats the result N times.
# edge_source WxH FORMAT N: building.jpg (868x600, lines and texture).
edge_source () {
  local w=${1%x*} h=${1#*x} cw=868 ch
  ch=$(( (868 * h + w / 2) / w ))
  [ "$ch" -le 600 ] || { ch=600; cw=$(( (600 * w + h / 2) / h )); }
  SRC=(filesrc "location=$DATA/building.jpg" ! jpegdec ! videoconvert
    ! videocrop "left=$(( (868 - cw) / 2 ))" "right=$(( 868 - cw - (868 - cw) / 2 ))"
      "top=$(( (600 - ch) / 2 ))" "bottom=$(( 600 - ch - (600 - ch) / 2 ))"
    ! videoscale ! videoconvert ! "video/x-raw,format=$2,width=$w,height=$h"
    ! imagefreeze "num-buffers=$3")
}
# face_source WxH FORMAT N: the LFW mosaic (1440x720: 100 faces and 100
# non-faces in 72-pixel cells over iceblock.jpg), its left part cut to the
# aspect ratio, so 640x480 shows 13x10 cells with 32-pixel faces and
# 1920x1080 17.8x10 cells with 72-pixel faces. RGB first, then FORMAT, so
# that both detectors see the same pixels.
face_source () {
  local w=${1%x*} h=${1#*x} cw
  cw=$(( (720 * w + h / 2) / h ))
  [ "$cw" -le 1440 ] || { echo "face sizes wider than 2:1 are not supported: $1" >&2; exit 2; }
  SRC=(filesrc "location=$DATA/faces/face_tiles.png" ! pngdec ! videoconvert
    ! videocrop "right=$(( 1440 - cw ))" ! videoscale ! videoconvert ! "video/x-raw,format=RGB"
    ! videoconvert ! "video/x-raw,format=$2,width=$w,height=$h" ! imagefreeze "num-buffers=$3")
}

# The elements, configured for the same work (see the header).
EDGEDETECT=(edgedetect threshold1=50 threshold2=150 aperture=3 mask=false)
OUR_CANNY=(cudacanny backend=cpu low-threshold=50 high-threshold=150 aperture=3 l2-gradient=false blur-sigma=0)
OUR_GRAY=(cudagray backend=cpu)
# facedetect loads its eye, nose and mouth cascades when created; an empty
# name makes OpenCV throw, a missing file leaves them unloaded (OpenCV logs
# one "Can't open file" line each, in the logs).
NO_CASCADE=/nonexistent/cpu-baselines-disabled.xml
FACEDETECT=(facedetect "profile=$CASCADE" scale-factor=1.1 min-neighbors=3 min-size-width=0 min-size-height=0
  flags=0 min-stddev=0 display=false updates=every_frame
  "eyes-profile=$NO_CASCADE" "nose-profile=$NO_CASCADE" "mouth-profile=$NO_CASCADE")
OUR_FACE=(cudafacedetect backend=cpu "cascade=$CASCADE" scale-factor=1.1 min-neighbors=3 min-size=0 max-size=0
  draw=false post-messages=true)

# variant NAME WxH N: sets SRC (N frames of WxH), EL (the element or chain
# measured), LABEL and INPUT for one of the pipelines compared.
variant () {
  case "$1" in
    edgedetect) edge_source "$2" RGB "$3"; EL=("${EDGEDETECT[@]}")
      LABEL="edgedetect mask=false (RGB → RGB edges)"; INPUT=RGB ;;
    gray-canny) edge_source "$2" RGB "$3"; EL=("${OUR_GRAY[@]}" ! "${OUR_CANNY[@]}")
      LABEL="cudagray ! cudacanny backend=cpu (RGB → GRAY8 edges)"; INPUT=RGB ;;
    canny) edge_source "$2" GRAY8 "$3"; EL=("${OUR_CANNY[@]}")
      LABEL="cudacanny backend=cpu alone (GRAY8 → GRAY8)"; INPUT=GRAY8 ;;
    facedetect) face_source "$2" RGB "$3"; EL=("${FACEDETECT[@]}")
      LABEL="facedetect (RGB, in place)"; INPUT=RGB ;;
    cudafacedetect) face_source "$2" RGBx "$3"; EL=("${OUR_FACE[@]}")
      LABEL="cudafacedetect backend=cpu (RGBx)"; INPUT=RGBx ;;
    *) echo "unknown variant $1" >&2; exit 1 ;;
  esac
}

# vals "A B C ": one value a line.
vals () { tr " " "\n" <<< "$1" | grep .; }

# per_frame SECONDS BASE N: milliseconds per timed frame.
per_frame () { awk -v a="$1" -v b="$2" -v n="$3" 'BEGIN { printf "%.2f", (a - b) * 1000 / (n - 1) }'; }

# measure_group WxH N VARIANT...: each repetition runs every variant's
# pipeline without and with its element, in turn, so that a change in the
# machine's speed during the run hits all variants alike; then one table
# row per variant, the first (gst-plugins-bad's element) the reference.
measure_group () {
  local s=$1 n=$2 r v t0 t1 name
  shift 2
  local -A tb=() te=()
  for r in $(seq 1 "$REPS"); do
    for v in "$@"; do
      variant "$v" "$s" "$n"
      name="$v-$s"
      launch "$OUT/logs/$name-base-$r.log" "${SRC[@]}" ! fakesink sync=false
      launch "$OUT/logs/$name-$r.log" "${SRC[@]}" ! "${EL[@]}" ! fakesink sync=false
      t0=$(seconds "$OUT/logs/$name-base-$r.log")
      t1=$(seconds "$OUT/logs/$name-$r.log")
      tb[$v]+="$t0 "
      te[$v]+="$t1 "
      echo "$name run $r: $t1 s with, $t0 s without ($((n - 1)) timed frames)" >> "$OUT/logs/runs.txt"
    done
  done
  local ref="" mb me ms lo hi fps rel
  for v in "$@"; do
    variant "$v" "$s" "$n"
    mb=$(vals "${tb[$v]}" | median)
    me=$(vals "${te[$v]}" | median)
    lo=$(vals "${te[$v]}" | sort -g | head -n 1)
    hi=$(vals "${te[$v]}" | sort -g | tail -n 1)
    ms=$(per_frame "$me" "$mb" "$n")
    [ -n "$ref" ] || ref=$ms
    fps=$(awk -v m="$ms" 'BEGIN { if (m > 0) printf "%.1f", 1000 / m; else print "-" }')
    rel=$(awk -v m="$ms" -v r="$ref" 'BEGIN { if (r > 0) printf "%.2f", m / r; else print "-" }')
    say "| $s | $LABEL | $INPUT / $((n - 1)) | **$ms** | $(per_frame "$lo" "$mb" "$n")-$(per_frame "$hi" "$mb" "$n") | $fps | $rel | $(per_frame "$mb" 0 "$n") |"
  done
}

say "## Run"
say ""
say "- machine: $(sed -n 's/^model name[[:space:]]*: //p' /proc/cpuinfo | head -n 1), $(nproc) cores"
say "- GStreamer: $(gst-launch-1.0 --version | sed -n 's/^GStreamer //p'), gst-plugins-bad opencv: $(gst-inspect-1.0 edgedetect | sed -n 's/^ *Version *//p' | head -n 1), plugin: $GST_PLUGIN_PATH"
say "- reps $REPS, load average before: $(cut -d' ' -f1-3 /proc/loadavg)"
say "- ms per frame = (median run with the element - median run without) / timed frames;"
say "  spread = the same from the fastest and slowest run with the element; vs = ms / the first row's ms"
say "  (same size, runs interleaved); source = the run without the element, per frame"
say ""
say "## Edge detection (thresholds 50/150, aperture 3, L1)"
say ""
say "| size | element(s) | input / timed frames | ms per frame (median) | spread ms | fps | vs edgedetect | source ms |"
say "| --- | --- | --- | --- | --- | --- | --- | --- |"
for s in ${SIZES//,/ }; do
  measure_group "$s" "$(frames_for "$FRAMES" "$s")" edgedetect gray-canny canny
done
say ""
say "## Face detection (frontal default cascade, scale 1.1, min-neighbors 3, min size 24)"
say ""
say "| size | element | input / timed frames | ms per frame (median) | spread ms | fps | vs facedetect | source ms |"
say "| --- | --- | --- | --- | --- | --- | --- | --- |"
for s in ${FACE_SIZES//,/ }; do
  measure_group "$s" "$(frames_for "$FACE_FRAMES" "$s")" facedetect cudafacedetect
done
say ""
say "- load average after: $(cut -d' ' -f1-3 /proc/loadavg)"

# faces LOG: the faces of the first facedetect message in LOG, "x y w h" a line
# (gst-launch -m prints the list escaped: face\,\ x\=\(uint\)177\,\ ...).
faces () {
  grep -m 1 '(element): facedetect,' "$1" | sed 's/\\//g' |
    grep -o 'x=(uint)[0-9]*, y=(uint)[0-9]*, width=(uint)[0-9]*, height=(uint)[0-9]*' |
    sed 's/[a-z]*=(uint)//g; s/,//g' || true
}

# compare NAME: boxes of both detectors on SRC (one frame), matched by IoU.
compare () {
  local name=$1 a b
  launch "$OUT/logs/boxes-facedetect-$name.log" -m "${SRC_RGB[@]}" ! "${FACEDETECT[@]}" ! fakesink
  launch "$OUT/logs/boxes-cudafacedetect-$name.log" -m "${SRC_RGBX[@]}" ! "${OUR_FACE[@]}" ! fakesink
  grep -q '(element): facedetect,' "$OUT/logs/boxes-facedetect-$name.log" || { echo "no facedetect message for $name" >&2; return 1; }
  grep -q '(element): facedetect,' "$OUT/logs/boxes-cudafacedetect-$name.log" || { echo "no cudafacedetect message for $name" >&2; return 1; }
  a=$(faces "$OUT/logs/boxes-facedetect-$name.log" | paste -sd ';')
  b=$(faces "$OUT/logs/boxes-cudafacedetect-$name.log" | paste -sd ';')
  # For each facedetect box the best IoU among ours; the boxes listed only
  # for a few faces.
  awk -v name="$name" -v A="$a" -v B="$b" '
    function iou(p, q,   ix, iy, inter) {
      ix = min(p[1] + p[3], q[1] + q[3]) - max(p[1], q[1])
      iy = min(p[2] + p[4], q[2] + q[4]) - max(p[2], q[2])
      if (ix <= 0 || iy <= 0) return 0
      inter = ix * iy
      return inter / (p[3] * p[4] + q[3] * q[4] - inter)
    }
    function min(x, y) { return x < y ? x : y }
    function max(x, y) { return x > y ? x : y }
    function fmt(lines, n,   s, i) {
      if (n == 0) return "none"
      if (n > 3) return n " faces"
      s = ""
      for (i = 1; i <= n; i++) s = s (i > 1 ? "; " : "") lines[i]
      return s
    }
    BEGIN {
      na = (A == "") ? 0 : split (A, la, ";")
      nb = (B == "") ? 0 : split (B, lb, ";")
      worst = 1; same = 0
      for (i = 1; i <= na; i++) {
        split (la[i], p, " "); best = 0
        for (j = 1; j <= nb; j++) { split (lb[j], q, " "); v = iou(p, q); if (v > best) best = v }
        if (best < worst) worst = best
        if (best == 1) same++
      }
      for (i = 1; i <= na; i++) { split (la[i], p, " "); la[i] = "(" p[1] "," p[2] " " p[3] "x" p[4] ")" }
      for (j = 1; j <= nb; j++) { split (lb[j], q, " "); lb[j] = "(" q[1] "," q[2] " " q[3] "x" q[4] ")" }
      printf "| %s | %s | %s | %s |\n", name, fmt(la, na), fmt(lb, nb),
        (na == 0 && nb == 0) ? "both none" : (na == 0 ? "facedetect none, cudafacedetect " nb : \
        sprintf ("%d of %d identical, worst best-IoU %.3f, counts %d / %d", same, na, worst, na, nb))
    }' | tee -a "$RESULTS"
}

say ""
say "## Boxes: facedetect vs cudafacedetect backend=cpu (same parameters, bus messages of gst-launch -m)"
say ""
say "| image | facedetect (x,y wxh) | cudafacedetect (x,y wxh) | agreement |"
say "| --- | --- | --- | --- |"
for img in astronaut.png grace_hopper.jpg iceblock.jpg; do
  case "$img" in
    *.png) dec=pngdec ;;
    *) dec=jpegdec ;;
  esac
  SRC_RGB=(filesrc "location=$DATA/$img" ! "$dec" ! videoconvert ! "video/x-raw,format=RGB")
  SRC_RGBX=("${SRC_RGB[@]}" ! videoconvert ! "video/x-raw,format=RGBx")
  compare "$img"
done
for s in ${FACE_SIZES//,/ }; do
  face_source "$s" RGB 1
  SRC_RGB=("${SRC[@]}")
  face_source "$s" RGBx 1
  SRC_RGBX=("${SRC[@]}")
  compare "mosaic-$s"
done
echo "results: $RESULTS, logs: $OUT/logs"
