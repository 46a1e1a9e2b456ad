#!/usr/bin/env bash
# Test driver for examples/launch/*.sh: runs SCRIPT with the CPU backend and
# a few frames into an empty OUTDIR, then
#   - exit 77 (skipped) when the script says an element is missing;
#   - the script's output must match EXPECT (an extended regex; "" = any);
#   - check-output CHECKS on every file the script wrote (none: no check).
#
#   run-launch.sh CHECK_OUTPUT OUTDIR EXPECT CHECKS SCRIPT [ARGS...]
#   e.g. run-launch.sh build/examples/check-output /tmp/o 'threshold: [0-9]+' '--binary' otsu-document.sh --cpu
set -uo pipefail
check=$1 out=$2 expect=$3 checks=$4 script=$5
shift 5
rm -rf "$out" && mkdir -p "$out"
log="$out/../$(basename "$out").log"
"$script" --out "$out" "$@" 2>&1 | tee "$log"
rc=${PIPESTATUS[0]}
[ "$rc" = 0 ] || exit "$rc"   # 77 = skipped passes through
if [ -n "$expect" ] && ! grep -Eq "$expect" "$log"; then
  echo "FAIL: the output does not match: $expect" >&2
  exit 1
fi
shopt -s nullglob
files=("$out"/*.png "$out"/*.mp4)
if [ -n "$checks" ]; then
  # shellcheck disable=SC2086  # CHECKS is a list of options
  "$check" $checks "${files[@]}"
fi
