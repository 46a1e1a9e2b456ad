# Shell functions for measuring on the GPU machine, above all one tree
# against another built and run in the same call, alternately, since two
# machines (or two calls on one) differ by more than most changes
# (docs/GPU-TESTING.md, "Comparing two trees"). Source it from the
# repository root, in the script a device call runs:
#
#   source tools/device-lib.sh
#   host_info                         # the GPU, its driver, the CPU model, uptime
#   build_trees base.tar base         # this tree in build-dev, base.tar's in $CV_OTHER/base/build-dev
#   paced_ab 2 "$CV_OTHER/base/build-dev/bench" build-dev/bench "cudafacedetect latency-frames=1"
#
# base.tar is `git archive --prefix=base/ -o base.tar COMMIT`, made on the
# development machine and carried with the call, as .devbundle.tgz is.
# Without a tar, build_trees builds this tree alone. The builds go through
# tools/gpu-check.sh --bundle --only build; use_bundle then sets up the
# bundle's GStreamer and OpenCV for the commands that follow.
#
# Environment: CV_OTHER, where the other tree is unpacked (default a fresh
# mktemp -d directory); PACED_ARGS, more options for cudavision-streams
# (e.g. --paced-gap-us 33333, or --backend cpu to try this on a machine
# without a GPU).

# use_bundle: the GPU machine's GStreamer, GLib and OpenCV (.devbundle.tgz,
# unpacked by gpu-check.sh --bundle) and the Haar cascades where the tests
# look for them.
use_bundle () {
  source .devbundle/env.sh
  mkdir -p /usr/share/opencv4 && cp -r .devbundle/share/opencv4/haarcascades /usr/share/opencv4/ 2>/dev/null
}

# build_trees [TAR DIR]: this tree built in build-dev; with TAR (a `git
# archive --prefix=DIR/`) that tree too, in $CV_OTHER/DIR/build-dev, at the
# same time. Prints NEWBUILD and BUILD DIR with each build's exit status
# (logs in $CV_OTHER), then calls use_bundle.
build_trees () {
  local tar=${1:-} dir=${2:-} bp=""
  CV_OTHER=${CV_OTHER:-$(mktemp -d "${TMPDIR:-/tmp}/cv-trees.XXXXXX")}
  export CV_OTHER
  if [ -n "$tar" ]; then
    tar xf "$tar" -C "$CV_OTHER" || return 1
    [ -f .devbundle.tgz ] && cp .devbundle.tgz "$CV_OTHER/$dir/"
    ( cd "$CV_OTHER/$dir" && timeout 300 tools/gpu-check.sh --bundle --only build --builddir build-dev \
        --out "$CV_OTHER/gpu-check-$dir" > "$CV_OTHER/build-$dir.log" 2>&1; echo "BUILD $dir $?" ) &
    bp=$!
  fi
  timeout 300 tools/gpu-check.sh --bundle --only build --builddir build-dev --out "$CV_OTHER/gpu-check" \
      > "$CV_OTHER/build.log" 2>&1
  echo "NEWBUILD $?"
  if [ -n "$bp" ]; then wait "$bp"; fi
  use_bundle
}

# paced BENCHDIR CHAIN [ROUNDS]: one pipeline at 720p and 1080p, 600
# frames, ROUNDS paced rounds (default 3); the STREAMS and OVERHEAD lines
# on one line.
paced () {
  # shellcheck disable=SC2086  # PACED_ARGS is a list of options
  timeout 90 "$1/cudavision-streams" --pipelines 1 --sizes 1280x720,1920x1080 --frames 600 \
      --paced-rounds "${3:-3}" --chain "$2" ${PACED_ARGS:-} 2>&1 | grep -E "^OVERHEAD |^STREAMS|error" \
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

# paced_ab N BENCHDIR_A BENCHDIR_B CHAIN...: N rounds; in each, every chain
# on tree A, then on tree B, each a `paced` line headed "rR A|B [CHAIN]".
paced_ab () {
  local n=$1 a=$2 b=$3 r ch
  shift 3
  for r in $(seq "$n"); do
    for ch in "$@"; do
      echo -n "r$r A [$ch] "
      paced "$a" "$ch"
      echo -n "r$r B [$ch] "
      paced "$b" "$ch"
    done
  done
}

# host_info: the GPU, the driver and the host's CPU model, how long it has
# been up (a machine's host times differ from another's: docs/RELIABILITY.md,
# "Host time, host by host").
host_info () {
  nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
  grep -m2 -E "^model( name)?\s*:" /proc/cpuinfo
  uptime
}
