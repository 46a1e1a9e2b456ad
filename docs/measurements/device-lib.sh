# The steps the device calls' scripts (docs/measurements/*/callN.sh) share;
# sourced by them from the repository root on the GPU machine.

# use_bundle: the GPU machine's GStreamer, GLib and OpenCV (.devbundle.tgz,
# unpacked by gpu-check.sh --bundle) and the Haar cascades where the
# tests look for them.
use_bundle () {
  source .devbundle/env.sh
  mkdir -p /usr/share/opencv4 && cp -r .devbundle/share/opencv4/haarcascades /usr/share/opencv4/ 2>/dev/null
}

# build_trees [TAR DIR]: the working tree built in build-dev; with TAR (a
# `git archive --prefix=DIR/` of another tree, e.g. the session's start)
# that tree too, in /tmp/b/DIR/build-dev, at the same time. Prints
# NEWBUILD and BUILD DIR with each build's status, then use_bundle.
build_trees () {
  local tar=${1:-} dir=${2:-} bp=""
  if [ -n "$tar" ]; then
    rm -rf /tmp/b; mkdir -p /tmp/b && tar xf "$tar" -C /tmp/b && cp .devbundle.tgz "/tmp/b/$dir/"
    ( cd "/tmp/b/$dir" && timeout 300 tools/gpu-check.sh --bundle --only build --builddir build-dev --out /tmp/gcb \
        > /tmp/bb.log 2>&1; echo "BUILD $dir $?" ) &
    bp=$!
  fi
  timeout 300 tools/gpu-check.sh --bundle --only build --builddir build-dev --out /tmp/gc > /tmp/nb.log 2>&1
  echo "NEWBUILD $?"
  if [ -n "$bp" ]; then wait "$bp"; fi
  use_bundle
}

# paced BENCHDIR CHAIN [ROUNDS]: one pipeline at 720p and 1080p, 600
# frames, ROUNDS paced rounds (default 3); the STREAMS and OVERHEAD lines
# on one line.
paced () {
  timeout 90 "$1/cudavision-streams" --pipelines 1 --sizes 1280x720,1920x1080 --frames 600 \
      --paced-rounds "${3:-3}" --chain "$2" 2>&1 | grep -E "^OVERHEAD |^STREAMS|error" \
    | sed 's/devices=0 //;s/speedup=1.00 //;s/device_check=[0-9/]* //' | tr '\n' ' '
  echo
}

# paced_runs N BENCHDIR CHAIN...: N runs of every chain, in turn, each a
# `paced` line headed "rR [CHAIN]".
paced_runs () {
  local n=$1 dir=$2 r ch
  shift 2
  for r in $(seq "$n"); do
    for ch in "$@"; do
      echo -n "r$r [$ch] "
      paced "$dir" "$ch"
    done
  done
}

# host_info: the GPU, the driver and the host's CPU model, how long it has
# been up (a machine's figures differ from another's: docs/RELIABILITY.md).
host_info () {
  nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
  grep -m1 "model\s*:" /proc/cpuinfo
  uptime
}
