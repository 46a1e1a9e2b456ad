#!/usr/bin/env bash
# Test of examples/camera/face-relay.sh, end to end on 127.0.0.1: the
# client (--receive --save) writes what reaches it to PNGs, the relay
# decodes the H.264 RTP stream, boxes faces in magenta on the decoder's own
# frames and re-encodes, the sender (--send) streams FRAMES frames of
# astronaut.png. Then the received frames must decode, and each must carry
# the magenta box where the face is: on the border of the rectangle
# measured on the CPU backend (x 177, y 67, 95 x 95 at 512x512; the relay's
# detection on a decoded H.264 frame moves by a pixel or two), within 4
# pixels, with a colour tolerance for H.264 and 4:2:0 chroma
# (check-output --box). The check must fail on the picture itself (no
# box), and with --no-draw the stream must arrive and the check must fail.
#
#   run-face-relay.sh CHECK_OUTPUT OUTDIR PORT [--gpu] [--no-draw] [--frames N]
#
# --gpu: the relay's GPU path (nvh264dec ! cudafacedetect backend=cuda !
# cudadownload ! openh264enc, or nvh264enc where it exists), checked to
# keep the frame in memory:CUDAMemory from the decoder through
# cudafacedetect; exit 77 (skipped) without nvh264dec. Otherwise the CPU
# path (avdec_h264 ! cudafacedetect backend=cpu ! openh264enc), checked to
# take the decoder's I420 directly. PORT is the first port tried: the relay
# listens on the first free one, the client on the next.
set -uo pipefail
check=$1 out=$2 port=$3
shift 3
# CUDAVISION_TEST_PORT_OFFSET shifts the first port tried, for two test
# runs on one host at once (one suite per GPU): the search is not atomic.
port=$((port + ${CUDAVISION_TEST_PORT_OFFSET:-0}))
path=cpu draw=1 frames=15
while [ $# -gt 0 ]; do
  case "$1" in
    --gpu) path=gpu ;;
    --no-draw) draw=0 ;;
    --frames) frames=$2; shift ;;
    *) echo "unknown option: $1" >&2; exit 2 ;;
  esac
  shift
done
root=$(cd "$(dirname "$0")/../.." && pwd)
relay="$root/examples/camera/face-relay.sh"
rm -rf "$out" && mkdir -p "$out"
t0=$SECONDS

COLOR=ff00ff TOLERANCE=80 FACE=177,67,95,95
CHECKS=(--color "$COLOR" --tolerance "$TOLERANCE" --box "$FACE" --slack 4)

bound () { grep -q ":$(printf '%04X' "$1") " /proc/net/udp /proc/net/udp6 2>/dev/null; }
free_port () {   # the first free UDP port from $1 on
  local p=$1
  while bound "$p"; do p=$((p + 1)); done
  echo "$p"
}
in_port=$(free_port "$port")
out_port=$(free_port $((in_port + 1)))

# Each process in its own process group (job control), so that SIGINT
# reaches gst-launch-1.0 under the script: -e turns it into EOS.
set -m
pids=()
stop () {   # stop PID: EOS first, then harder
  local pid=$1
  kill -0 "$pid" 2>/dev/null || { wait "$pid" 2>/dev/null; return; }
  kill -INT -- -"$pid" 2>/dev/null
  for _ in $(seq 50); do kill -0 "$pid" 2>/dev/null || break; sleep 0.1; done
  kill -- -"$pid" 2>/dev/null
  wait "$pid" 2>/dev/null
}
cleanup () { local p; for p in "${pids[@]}"; do stop "$p"; done; }
trap cleanup EXIT
# wait_bound PORT PID LOG: until PID listens on PORT; its exit status
# (77: skipped) when it ends first.
wait_bound () {
  for _ in $(seq 150); do
    bound "$1" && return 0
    if ! kill -0 "$2" 2>/dev/null; then
      wait "$2"
      local rc=$?
      cat "$3"
      [ $rc = 0 ] && rc=1
      exit $rc
    fi
    sleep 0.1
  done
  echo "FAIL: nothing listens on port $1 after 15 s" >&2
  cat "$3"
  exit 1
}

client_args=(--receive --save --out "$out" --out-port "$out_port")
relay_args=(--in-port "$in_port" --out-port "$out_port" --color "0xff$COLOR" --min-size 64 --verbose)
if [ $path = gpu ]; then
  relay_args+=(--gpu)
  # the GPU host's GStreamer has no gst-libav: the client decodes with NVDEC
  gst-inspect-1.0 --exists avdec_h264 || client_args+=(--decoder nvh264dec)
else
  relay_args+=(--cpu)
fi
[ $draw = 1 ] || relay_args+=(--no-draw)

# The client and the relay start together (each takes a second or two to
# check its elements); the sender once both listen.
"$relay" "${client_args[@]}" > "$out/client.log" 2>&1 &
client=$!
pids+=("$client")
"$relay" "${relay_args[@]}" > "$out/relay.log" 2>&1 &
relay_pid=$!
pids+=("$relay_pid")
wait_bound "$in_port" "$relay_pid" "$out/relay.log"
wait_bound "$out_port" "$client" "$out/client.log"
echo "client on 127.0.0.1:$out_port, relay on 127.0.0.1:$in_port ($path path), $((SECONDS - t0)) s"

"$relay" --send --in-port "$in_port" --num-buffers "$frames" > "$out/sender.log" 2>&1 || {
  cat "$out/sender.log"
  exit 1
}
echo "sent $frames frames, $((SECONDS - t0)) s"

# The relay takes a while for each frame on the CPU: wait until all frames
# arrived, or none came for 5 s.
count () { local f=("$out"/face-relay-*.png); [ -e "${f[0]}" ] && echo ${#f[@]} || echo 0; }
last=-1 still=0
while [ "$(count)" -lt "$frames" ] && [ $still -lt 25 ]; do
  n=$(count)
  if [ "$n" = "$last" ]; then still=$((still + 1)); else still=0 last=$n; fi
  kill -0 "$relay_pid" 2>/dev/null || break
  sleep 0.2
done
if ! kill -0 "$relay_pid" 2>/dev/null; then   # it runs until stopped
  echo "FAIL: the relay ended by itself" >&2
  cat "$out/relay.log" >&2
  exit 1
fi
stop "$relay_pid"
stop "$client"
trap - EXIT
n=$(count)
echo "received $n of $frames frames, $((SECONDS - t0)) s"

# What cudafacedetect was given and gave (gst-launch-1.0 -v): the decoder's
# own format, no conversion to RGBA before it.
fd_in=$(grep -m1 'faces.GstPad:sink: caps' "$out/relay.log" | sed 's/.*caps = //')
fd_out=$(grep -m1 'faces.GstPad:src: caps' "$out/relay.log" | sed 's/.*caps = //')
echo "into cudafacedetect: $fd_in"
echo "out of cudafacedetect: $fd_out"
case "$path:$fd_in:$fd_out" in
  gpu:*memory:CUDAMemory*NV12*:*memory:CUDAMemory*) ;;
  cpu:video/x-raw,\ format=\(string\)I420*:video/x-raw,\ format=\(string\)I420*) ;;
  *) echo "FAIL: expected the decoder's frames as they are (cpu: I420 in system memory;" \
       "gpu: NV12 in memory:CUDAMemory, out in memory:CUDAMemory)" >&2
     cat "$out/relay.log" >&2
     exit 1 ;;
esac

files=("$out"/face-relay-*.png)
[ "$n" -gt 0 ] || { cat "$out/client.log" "$out/relay.log"; exit 1; }
# UDP on a loaded machine may lose a packet: half the frames must arrive.
min=$(((frames + 1) / 2))
if [ $draw = 0 ]; then
  # The stream arrives (frames decode, not blank), and the box check fails.
  "$check" --min-frames "$min" "${files[@]}" > /dev/null || exit 1
  if "$check" "${CHECKS[@]}" "${files[@]}" > "$out/check.log" 2>&1; then
    cat "$out/check.log"
    echo "FAIL: draw=false, yet the box check passed: it cannot fail" >&2
    exit 1
  fi
  tail -n 1 "$out/check.log"
  echo "ok: without boxes the check fails"
  exit 0
fi
# The colour is not in the picture without a box: the check can fail.
if "$check" "${CHECKS[@]}" "$root/tests/data/astronaut.png" > /dev/null 2>&1; then
  echo "FAIL: the box check passes on astronaut.png itself (no box there)" >&2
  exit 1
fi
"$check" --min-frames "$min" "${CHECKS[@]}" "${files[@]}"
rc=$?
echo "checked, $((SECONDS - t0)) s"
exit $rc
