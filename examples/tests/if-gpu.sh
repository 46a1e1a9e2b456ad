#!/usr/bin/env bash
# Runs COMMAND when cudavision can use a GPU here, else exits 77 (skipped):
# the GPU variants of the example tests (suite 'gpu').
#
#   if-gpu.sh [--leaks [--leaks-logs DIR]] COMMAND [ARGS...]
#
# --leaks: COMMAND runs under GStreamer's leaks tracer (GST_TRACERS=leaks,
# its records at GST_TRACER:7); the test fails when the tracer did not load
# (no record format registered) or when an object was still alive at gst_deinit () (gst-launch-1.0 calls
# it; "object-alive" records), in COMMAND's output or in the logs it left
# DIR/*.log (the logs of the processes COMMAND started in the background).
leaks=0 leaks_logs=""
if [ "${1:-}" = --leaks ]; then
  leaks=1
  shift
  if [ "${1:-}" = --leaks-logs ]; then
    leaks_logs=$2
    shift 2
  fi
fi
if ! gst-launch-1.0 -q videotestsrc num-buffers=1 ! cudagray backend=cuda ! fakesink > /dev/null 2>&1; then
  echo "skipped: no usable CUDA device (cudagray backend=cuda failed)"
  exit 77
fi
[ "$leaks" = 1 ] || exec "$@"

log=$(mktemp "${TMPDIR:-/tmp}/cudavision-leaks.XXXXXX") || exit 1
trap 'rm -f "$log"' EXIT
export GST_TRACERS=leaks
export GST_DEBUG="${GST_DEBUG:-*:2},GST_TRACER:7"
export GST_DEBUG_NO_COLOR=1
"$@" 2>&1 | tee "$log"
rc=${PIPESTATUS[0]}
[ "$rc" = 0 ] || exit "$rc"
logs=("$log")
if [ -n "$leaks_logs" ]; then
  shopt -s nullglob
  logs+=("$leaks_logs"/*.log)
fi
# loaded: it registers its records' formats (gst-plugin-scanner, which may
# run first, says "no tracer named 'leaks'" whatever happens next: not a sign)
if ! grep -qh "new format string: object-alive" "${logs[@]}"; then
  echo "FAIL: the leaks tracer did not load (GStreamer's coretracers plugin missing?)" >&2
  exit 1
fi
if grep -h "GST_TRACER .*:: object-alive," "${logs[@]}" | head -20 | grep .; then
  echo "FAIL: GStreamer objects still alive at gst_deinit (above)" >&2
  exit 1
fi
echo "leaks tracer: no object alive at gst_deinit"
