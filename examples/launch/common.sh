# shellcheck shell=bash disable=SC2034  # sourced: the scripts use the variables set here
# Sourced by the example scripts in examples/launch/ and examples/camera/:
# the options every example takes, where the plugin and the media are, and
# the check that the elements an example needs exist.
#
# Options (a script with more sets cv_usage_extra before sourcing this and
# parses CV_EXTRA_ARGS after):
#   --cpu            add backend=cpu to every cudavision element (no GPU needed)
#   --cuda           add backend=cuda: fail rather than fall back to the CPU
#   --num-buffers N  stop after N frames (default: the whole clip)
#   --out DIR        where output files go (default: demo-output/examples)
#   --input FILE     another picture or video instead of the bundled one
#   --mp4            video examples: write NAME.mp4 instead of NAME-00000.png, ...
#   -h, --help
#
# Exit status: 0 done, 1 failed, 2 bad usage, 77 an element the example needs
# is not available (yet): the convention meson and automake use for
# "skipped", so the tests stay green while elements land.

CV_ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
DATA="$CV_ROOT/tests/data"
BK=""            # "backend=cpu" / "backend=cuda": appended to every cudavision element
NUM_BUFFERS=-1   # identity eos-after=N; -1 = no limit
OUT="$CV_ROOT/demo-output/examples"
INPUT=""
MP4=""
CV_EXTRA_ARGS=()  # arguments this file does not know, for the script

cv_usage () {
  sed -n '2,/^set -/p' "$0" | sed -n 's/^# \{0,1\}//p'
  echo "options: [--cpu | --cuda] [--num-buffers N] [--out DIR] [--input FILE] [--mp4] ${cv_usage_extra:-}"
}

while [ $# -gt 0 ]; do
  case "$1" in
    --cpu) BK="backend=cpu" ;;
    --cuda) BK="backend=cuda" ;;
    --num-buffers) NUM_BUFFERS=${2:?--num-buffers needs a value}; shift ;;
    --out) OUT=${2:?--out needs a directory}; shift ;;
    --input) INPUT=${2:?--input needs a file}; shift ;;
    --mp4) MP4=1 ;;
    -h|--help) cv_usage; exit 0 ;;
    *) CV_EXTRA_ARGS+=("$1") ;;
  esac
  shift
done
case "$NUM_BUFFERS" in
  -1) ;;
  ''|*[!0-9]*) echo "--num-buffers: not a count: $NUM_BUFFERS" >&2; exit 2 ;;
esac

# The plugin from the build tree when it is not installed and no path is set.
. "$CV_ROOT/tools/plugin-path.sh"

# cv_have ELEMENT: true when the element exists. `gst-inspect-1.0 --exists`
# alone also requires the plugin's version to be at least GStreamer's own
# (1.22): cudavision is 0.1, hence the explicit minimum.
cv_have () {
  gst-inspect-1.0 --exists --atleast-version=0.0 "$1"
}

if ! cv_have cudagray; then
  echo "the cudavision plugin was not found: build it (tools/build.sh) and set" >&2
  echo "GST_PLUGIN_PATH=$CV_ROOT/build/gst, or install it (ninja -C build install)" >&2
  exit 1
fi

# cv_require ELEMENT...: exit 77 (skipped) when one of them is missing.
cv_require () {
  local e
  for e in "$@"; do
    if ! cv_have "$e"; then
      echo "skipped: element '$e' is not available (plugin not built or installed yet)" >&2
      exit 77
    fi
  done
}


# What every example uses beyond cudavision: a machine without them (a
# minimal GStreamer, such as a GPU test host's bundle) skips the examples.
cv_require videoconvert decodebin pngenc multifilesink

# cv_run ARGS...: gst-launch-1.0 with the pipeline, echoed first so that it
# can be copied; -e so that EOS (muxers, file sinks) is sent on Ctrl-C.
cv_run () {
  echo "+ gst-launch-1.0 $*" >&2
  gst-launch-1.0 -e "$@"
}

# cv_video_sink NAME: sets SINK, the pipeline's tail writing the frames to
# $OUT/NAME-00000.png, NAME-00001.png, ... (lossless, easy to look at) or,
# with --mp4, to $OUT/NAME.mp4 (libav's MPEG-4 part 2 encoder, or x264enc
# without it). Old frames of NAME are removed.
cv_video_sink () {
  local name=$1
  SINK_NAME=$name
  mkdir -p "$OUT"
  rm -f "$OUT/$name"-[0-9][0-9][0-9][0-9][0-9].png "$OUT/$name.mp4"
  if [ -n "$MP4" ]; then
    # libav's MPEG-4 part 2 encoder (gstreamer1.0-libav, installed by
    # tools/install-deps.sh) first: with x264enc the last frame of a
    # 5-frame run was lost at EOS (GStreamer 1.22).
    local enc=avenc_mpeg4
    cv_have avenc_mpeg4 || enc=x264enc
    cv_require "$enc" mp4mux
    # single-segment: re-times the frames into one open segment. With the
    # bundled clip's segment (it stops at 1.199 s), avenc_mpeg4 of
    # GStreamer 1.22 put out invalid timestamps and mp4mux wrote no frame.
    SINK=(identity single-segment=true ! videoconvert ! "$enc" ! mp4mux ! filesink "location=$OUT/$name.mp4")
  else
    SINK=(videoconvert ! pngenc ! multifilesink "location=$OUT/$name-%05d.png")
  fi
}

# cv_report: says what cv_video_sink's tail wrote.
cv_report () {
  if [ -n "$MP4" ]; then
    echo "wrote $OUT/$SINK_NAME.mp4"
    return
  fi
  local f=("$OUT/$SINK_NAME"-[0-9][0-9][0-9][0-9][0-9].png)
  [ -e "${f[0]}" ] || f=()
  echo "wrote ${#f[@]} frame(s): $OUT/$SINK_NAME-00000.png, ..."
}

# cv_video_source: sets SOURCE, the decoded frames of --input (any format
# decodebin reads) or of the bundled realshort.mp4 (decoded by named
# elements, so the chain is visible), limited to --num-buffers frames by
# `identity eos-after=N`, which ends the stream after N buffers. The clip is
# decoded by libav's avdec_h264, or without gst-libav (a GPU host with a
# minimal GStreamer) by NVDEC through nvcodec's nvh264dec; the videoconvert
# that follows in every example takes its frames in system memory.
cv_video_source () {
  if [ -n "$INPUT" ]; then
    SOURCE=(filesrc "location=$INPUT" ! decodebin)
  else
    local dec=avdec_h264
    if ! cv_have avdec_h264 && cv_have nvh264dec; then
      dec=nvh264dec
    fi
    cv_require qtdemux h264parse "$dec"
    SOURCE=(filesrc "location=$DATA/realshort.mp4" ! qtdemux ! h264parse ! "$dec")
  fi
  SOURCE+=(! identity "eos-after=$NUM_BUFFERS")
}
