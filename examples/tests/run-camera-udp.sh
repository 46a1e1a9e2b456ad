#!/usr/bin/env bash
# Test of examples/camera/camera-overlays.sh --udp: a receiver on
# 127.0.0.1 writes what arrives to PNGs, the script streams 10 frames of the
# bundled clip (CPU backend), and the frames that arrived must be pictures
# with the red corner crosses in them.
#
#   run-camera-udp.sh CHECK_OUTPUT OUTDIR PORT
# PORT is the first one tried: the next free one is used (/proc/net/udp).
set -uo pipefail
check=$1 out=$2 port=$3
# CUDAVISION_TEST_PORT_OFFSET shifts the first port tried, for two test
# runs on one host at once (one suite per GPU): the search is not atomic.
port=$((port + ${CUDAVISION_TEST_PORT_OFFSET:-0}))
while grep -q ":$(printf '%04X' "$port") " /proc/net/udp; do port=$((port + 1)); done
root=$(cd "$(dirname "$0")/../.." && pwd)
rm -rf "$out" && mkdir -p "$out"

caps="application/x-rtp,media=video,clock-rate=90000,encoding-name=RAW,sampling=RGB,depth=(string)8,width=(string)320,height=(string)240"
gst-launch-1.0 -e udpsrc address=127.0.0.1 "port=$port" buffer-size=4194304 "caps=$caps" ! rtpvrawdepay ! \
  videoconvert ! pngenc ! multifilesink "location=$out/rx-%05d.png" > "$out/receiver.log" 2>&1 &
rx=$!
stop_receiver () {
  kill -INT $rx 2>/dev/null   # -e: EOS first, so the last PNG is complete
  for _ in $(seq 50); do kill -0 $rx 2>/dev/null || break; sleep 0.1; done
  kill $rx 2>/dev/null
  wait $rx 2>/dev/null
}
trap stop_receiver EXIT

# UDP has no connection: wait until the receiver's socket is bound (the
# port, in hex, in /proc/net/udp) before sending.
hexport=$(printf '%04X' "$port")
for _ in $(seq 100); do
  grep -q ":$hexport " /proc/net/udp && break
  kill -0 $rx 2>/dev/null || { cat "$out/receiver.log"; exit 1; }
  sleep 0.1
done

"$root/examples/camera/camera-overlays.sh" --udp --port "$port" --num-buffers 10 --cpu --file
rc=$?
[ $rc = 0 ] || exit $rc
sleep 0.5   # the last packets
stop_receiver
trap - EXIT
n=$(ls "$out"/rx-*.png 2>/dev/null | wc -l)
echo "received $n of 10 frames"
# Loopback UDP may drop a frame under load; a few must arrive, intact.
"$check" --color ff0000 "$out"/rx-*.png
