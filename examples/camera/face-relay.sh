#!/usr/bin/env bash
# A face-boxing relay for an H.264 RTP stream, as deployed: H.264 over
# RTP/UDP in, faces boxed on the decoder's own frames, H.264 over RTP/UDP
# out. The same script is the test sender and the client (--send, --receive).
#
# The relay (default mode), on the CPU (--cpu: what CI runs):
#
#   udpsrc address=127.0.0.1 port=5004 caps="application/x-rtp,media=video,clock-rate=90000,encoding-name=H264,payload=96"
#   ! rtpjitterbuffer latency=100 ! rtph264depay ! h264parse
#   ! avdec_h264                          I420 in system memory
#   ! cudafacedetect draw=true            searches the Y plane in place, boxes the faces in colour
#                                         (no videoconvert to RGBA before it)
#   ! openh264enc bitrate=4000000 gop-size=30 rate-control=bitrate ! rtph264pay config-interval=-1 pt=96
#   ! udpsink host=127.0.0.1 port=5006
#
# and on an NVIDIA GPU (--gpu; the default when nvh264dec exists):
#
#   ... ! h264parse ! nvh264dec           NVDEC: NV12 in memory:CUDAMemory
#   ! cudafacedetect draw=true            reads and draws on the decoder's frame in device memory,
#                                         hands it on as memory:CUDAMemory
#   ! cudadownload ! videoconvert         the one copy to the host; NV12 -> I420 for openh264enc
#   ! openh264enc ! rtph264pay ! udpsink  (H100/H200 have no NVENC: a CPU encoder)
#
# or, where the GPU has NVENC (nvh264enc exists), `! cudafacedetect !
# nvh264enc ! rtph264pay ...`: the frame never leaves the GPU.
#
# The sender (--send; a picture with a face, for tests and demos):
#
#   filesrc location=tests/data/astronaut.png ! decodebin ! videoconvert ! video/x-raw,format=I420
#   ! imagefreeze num-buffers=N ! video/x-raw,framerate=30/1
#   ! openh264enc ! rtph264pay config-interval=-1 pt=96 ! udpsink host=127.0.0.1 port=5004
#
# The client (--receive), showing the boxed stream, or with --save writing
# it to demo-output/examples/face-relay-00000.png, ... (or, with --mp4, .mp4):
#
#   udpsrc address=127.0.0.1 port=5006 caps="application/x-rtp,...,encoding-name=H264,payload=96"
#   ! rtpjitterbuffer ! rtph264depay ! h264parse ! avdec_h264 ! videoconvert ! autovideosink
#
# Start the client first, then the relay, then the sender: UDP has no
# connection, so packets sent before a receiver listens are lost (a late
# client waits for the next key frame: one a second). Every packet stays on
# 127.0.0.1 unless --host and --bind say otherwise. Ctrl-C ends each one
# cleanly (gst-launch-1.0 -e: EOS first, so the last file is complete).
#
# On the CPU backend, the detector costs about 150 ms a 512x512 frame on a
# 2-core machine (60 ms with --min-size 64): slower than the 30 frames a
# second that come in, so frames wait in the jitter buffer and the stream
# lags; the GPU keeps up. --min-size also drops small false detections.
#
# Options, besides the common ones (--cpu, --cuda, --num-buffers N, --input FILE,
# --out DIR, --mp4):
#   --send          be the sender (the picture, or --input FILE: a picture or a video)
#   --receive       be the client (on screen; --save: to files in --out)
#   --save          --receive: write the frames (PNGs, or with --mp4 an MP4) instead of showing them
#   --in-port P     the relay's input port, where --send sends (5004)
#   --out-port P    the relay's output port, where --receive listens (5006)
#   --host H        where the relay and the sender send (127.0.0.1)
#   --bind ADDR     the address the relay and the client listen on (127.0.0.1;
#                   0.0.0.0: every interface, to take a stream from the network)
#   --cpu           the CPU path: backend=cpu, avdec_h264, openh264enc
#   --gpu           the GPU path: nvh264dec, backend=cuda, nvh264enc where it exists,
#                   else cudadownload ! videoconvert ! openh264enc
#   --decoder NAME  avdec_h264 or nvh264dec (default: nvh264dec when it exists, unless --cpu)
#   --encoder NAME  openh264enc or nvh264enc (default: nvh264enc after nvh264dec when it
#                   exists, else openh264enc)
#   --bitrate KBPS  encoders' bitrate (4000: the boxes' colour survives the compression)
#   --color C       the boxes' colour, 0xAARRGGBB (the element's default: green 0xff00ff00)
#   --min-size PX   smallest face searched (cudafacedetect min-size; 0 = the cascade's 24)
#   --no-draw       draw=false: detection only (the test's check must then fail)
#   --verbose       gst-launch-1.0 -v: the caps of every link (the test reads
#                   cudafacedetect's, named "faces")
#   --num-buffers N sender: send N frames (default 300: 10 s); relay and client:
#                   stop after N frames, when frame N + 1 arrives (default: at Ctrl-C)
#
# Examples (three terminals, in this order):
#   examples/camera/face-relay.sh --receive
#   examples/camera/face-relay.sh                       # the relay: GPU when there is one
#   examples/camera/face-relay.sh --send
#   examples/tests/run-face-relay.sh build/examples/check-output /tmp/relay 5640   # the test
set -euo pipefail
# shellcheck disable=SC2034  # read by common.sh
cv_usage_extra="[--send | --receive [--save]] [--in-port P] [--out-port P] [--host H] [--bind ADDR] [--gpu]
  [--decoder NAME] [--encoder NAME] [--bitrate KBPS] [--color 0xAARRGGBB] [--min-size PX] [--no-draw] [--verbose]"
. "$(dirname "$0")/../launch/common.sh"
mode=relay save="" in_port=5004 out_port=5006 host=127.0.0.1 bind=127.0.0.1 gpu="" decoder="" encoder="" kbps=4000
color="" min_size="" draw=true verbose=""
set -- "${CV_EXTRA_ARGS[@]+"${CV_EXTRA_ARGS[@]}"}"
while [ $# -gt 0 ]; do
  case "$1" in
    --send) mode=send ;;
    --receive) mode=receive ;;
    --save) save=1 ;;
    --in-port) in_port=${2:?--in-port needs a number}; shift ;;
    --out-port) out_port=${2:?--out-port needs a number}; shift ;;
    --host) host=${2:?--host needs an address}; shift ;;
    --bind) bind=${2:?--bind needs an address}; shift ;;
    --gpu) gpu=1 ;;
    --decoder) decoder=${2:?--decoder needs an element}; shift ;;
    --encoder) encoder=${2:?--encoder needs an element}; shift ;;
    --bitrate) kbps=${2:?--bitrate needs kbit/s}; shift ;;
    --color) color=${2:?--color needs 0xAARRGGBB}; shift ;;
    --min-size) min_size=${2:?--min-size needs pixels}; shift ;;
    --no-draw) draw=false ;;
    --verbose) verbose=-v ;;
    *) echo "unknown option: $1 (see --help)" >&2; exit 2 ;;
  esac
  shift
done
if [ -n "$gpu" ]; then
  [ "$BK" = backend=cpu ] && { echo "--gpu and --cpu exclude each other" >&2; exit 2; }
  BK=backend=cuda
  decoder=${decoder:-nvh264dec}
fi

RTP_CAPS="application/x-rtp,media=video,clock-rate=90000,encoding-name=H264,payload=96"
# The received stream, up to the compressed frames. rtpjitterbuffer puts
# the packets back in order (none are reordered on localhost, but a network
# reorders); the sender repeats SPS/PPS before every key frame
# (config-interval=-1), so a receiver needs no out-of-band parameters.
rtp_in () {
  RX=(udpsrc "address=$bind" "port=$1" buffer-size=4194304 "caps=$RTP_CAPS" ! rtpjitterbuffer latency=100 !
    rtph264depay ! h264parse)
}
# encode_send ENCODER PORT SYNC: TX, the H.264 encoder (by name, with its
# settings) into the RTP sender; SYNC: udpsink paces the frames by their
# timestamps (the sender) or sends each as soon as it is encoded (the relay,
# whose frames come paced). openh264enc:
# rate control on the bitrate, a key frame every 30 frames; nvh264enc:
# the same bitrate (in kbit/s), no B-frames, a key frame every 30 frames.
encode_send () {
  case "$1" in
    openh264enc) TX=(openh264enc "bitrate=$((kbps * 1000))" gop-size=30 rate-control=bitrate) ;;
    nvh264enc) TX=(nvh264enc "bitrate=$kbps" gop-size=30 bframes=0) ;;
    *) TX=("$1") ;;
  esac
  TX+=(! rtph264pay config-interval=-1 pt=96 ! udpsink "host=$host" "port=$2" "sync=$3")
}
# --num-buffers N for the relay and the client: udpsrc never ends, so
# `identity eos-after` ends the stream. It lets N-1 buffers through and
# turns the Nth into EOS (GStreamer 1.22), hence N + 1: N frames pass, and
# frame N + 1, when it comes, ends the run.
limit () {
  LIMIT=()
  [ "$NUM_BUFFERS" = -1 ] || LIMIT=(! identity "eos-after=$((NUM_BUFFERS + 1))")
}

case $mode in
send)
  cv_require openh264enc rtph264pay udpsink
  frames=$NUM_BUFFERS
  [ "$frames" = -1 ] && frames=300
  input=${INPUT:-$DATA/astronaut.png}
  case "${input,,}" in
    *.png | *.jpg | *.jpeg)   # a picture, repeated at 30 frames a second
      SOURCE=(filesrc "location=$input" ! decodebin ! videoconvert ! video/x-raw,format=I420 !
        imagefreeze "num-buffers=$frames" ! video/x-raw,framerate=30/1) ;;
    *)
      SOURCE=(filesrc "location=$input" ! decodebin ! identity "eos-after=$((frames + 1))" !
        videoconvert ! video/x-raw,format=I420) ;;
  esac
  encode_send openh264enc "$in_port" true
  echo "sending $frames frame(s) of $input as H.264 RTP to $host:$in_port"
  cv_run "${SOURCE[@]}" ! "${TX[@]}"
  ;;

receive)
  dec=${decoder:-avdec_h264}
  if [ -z "$decoder" ] && ! cv_have avdec_h264 && cv_have nvh264dec; then
    dec=nvh264dec   # a GPU host without gst-libav
  fi
  cv_require udpsrc rtpjitterbuffer rtph264depay h264parse "$dec"
  rtp_in "$out_port"
  limit
  if [ -n "$save" ]; then
    cv_video_sink face-relay   # removes the previous run's files
    # PNGs: compression-level=1 is several times faster than pngenc's default
    [ -n "$MP4" ] || SINK=(videoconvert ! pngenc compression-level=1 ! multifilesink sync=false
      "location=$OUT/face-relay-%05d.png")
  else
    SINK=(videoconvert ! autovideosink)
  fi
  echo "client: H.264 RTP on $bind:$out_port -> $dec -> ${SINK[2]:-${SINK[0]}}"
  cv_run "${RX[@]}" ! "$dec" "${LIMIT[@]+"${LIMIT[@]}"}" ! "${SINK[@]}"
  [ -z "$save" ] || cv_report
  ;;

relay)
  if [ -z "$decoder" ]; then
    decoder=avdec_h264
    [ "$BK" != backend=cpu ] && cv_have nvh264dec && decoder=nvh264dec
  fi
  if [ -z "$encoder" ]; then
    encoder=openh264enc
    [ "$decoder" = nvh264dec ] && cv_have nvh264enc && encoder=nvh264enc
  fi
  cv_require cudafacedetect udpsrc rtpjitterbuffer rtph264depay h264parse rtph264pay udpsink "$decoder" "$encoder"
  rtp_in "$in_port"
  limit
  FACES=(cudafacedetect name=faces "draw=$draw" ${BK:+"$BK"})
  [ -n "$color" ] && FACES+=("color=$color")
  [ -n "$min_size" ] && FACES+=("min-size=$min_size")
  # Between the detector and the encoder: nothing when the encoder takes
  # the decoder's frames as they are (avdec_h264's I420 into openh264enc,
  # nvh264dec's CUDA NV12 into nvh264enc); a download and NV12 -> I420 from
  # nvh264dec to a CPU encoder.
  MID=()
  if [ "$decoder" = nvh264dec ] && [ "$encoder" != nvh264enc ]; then
    cv_require cudadownload
    # cudafacedetect prefers memory:CUDAMemory among cudadownload's caps
    # (system memory first there): the test checks the caps
    MID=(cudadownload ! videoconvert ! video/x-raw,format=I420 !)
  fi
  encode_send "$encoder" "$out_port" false
  echo "relay: H.264 RTP on $bind:$in_port -> $decoder -> cudafacedetect -> $encoder -> $host:$out_port"
  cv_run $verbose "${RX[@]}" ! "$decoder" "${LIMIT[@]+"${LIMIT[@]}"}" ! "${FACES[@]}" ! "${MID[@]}" "${TX[@]}"
  ;;
esac
