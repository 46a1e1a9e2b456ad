#!/usr/bin/env bash
# Installs what is missing, builds, and runs every test suite (meson test).
# GPU tests skip (exit 77) on machines without a CUDA device.
set -uo pipefail
cd "$(dirname "$0")/.."
tools/install-deps.sh || exit 1
tools/build.sh || exit 1
meson test -C build --print-errorlogs --num-processes 2 "$@"
rc=$?
# One closing line that any reader understands.
log=build/meson-logs/testlog.json
if [ -f "$log" ]; then
  python3 - "$log" <<'PY'
import json, sys
c = {"OK": 0, "FAIL": 0, "SKIP": 0, "TIMEOUT": 0, "ERROR": 0, "EXPECTEDFAIL": 0, "UNEXPECTEDPASS": 0}
for line in open(sys.argv[1]):
    r = json.loads(line).get("result", "")
    c[r] = c.get(r, 0) + 1
failed = c["FAIL"] + c["TIMEOUT"] + c["ERROR"] + c["UNEXPECTEDPASS"]
print(f"{c['OK'] + c['EXPECTEDFAIL']} passed, {failed} failed, {c['SKIP']} skipped")
PY
fi
exit $rc
