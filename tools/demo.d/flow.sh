# Sourced by tools/demo.sh: optical-flow tracks between the two basketball
# frames (a two-frame "video" from multifilesrc), the second frame drawn.
gst-launch-1.0 -q multifilesrc location=tests/data/basketball%d.png start-index=1 stop-index=2 \
  caps=image/png,framerate=1/1 ! pngdec ! videoconvert ! video/x-raw,format=RGBA ! \
  cudaflow draw=true max-corners=300 ! videoconvert ! pngenc ! \
  multifilesink location="$out/basketball-flow-%d.png"
echo "wrote $out/basketball-flow-1.png (tracks from frame 0 to frame 1)"
