#!/usr/bin/env bash
# Checks that the C, C++ and CUDA lines changed since BASE follow
# .clang-format (test `format`, suite `unit`). Only changed lines are
# looked at, so the code written before the config is never reformatted
# wholesale, while every change after it must follow it.
#
#   tools/check-format.sh [BASE]
#
# BASE defaults to the commit that added .clang-format. Prints what
# clang-format would change and exits 1 on a finding; exits 77 (skipped)
# outside a git checkout or when no commit has .clang-format yet (not
# committed, or a shallow clone: pass BASE). To apply the fixes:
#   git clang-format BASE
set -euo pipefail
cd "$(dirname "$0")/.."

if ! command -v git > /dev/null || ! git rev-parse --is-inside-work-tree > /dev/null 2>&1; then
  echo "format: not a git checkout (or git refuses it: safe.directory), nothing to compare: skipped"
  exit 77
fi

# Debian 12 installs clang-format-14 and git-clang-format-14, with
# unversioned links when clang-format itself is installed.
fmt=$(command -v clang-format || command -v clang-format-14 || true)
gcf=$(command -v git-clang-format || command -v git-clang-format-14 || true)
if [ -z "$fmt" ] || [ -z "$gcf" ]; then
  echo "format: clang-format and git-clang-format are needed (Debian: apt-get install clang-format," \
    "also in tools/install-deps.sh)" >&2
  exit 1
fi

base=${1:-$(git log --diff-filter=A --format=%H -- .clang-format | tail -1)}
if [ -z "$base" ]; then
  echo "format: no commit adds .clang-format here (not committed yet, or a shallow clone):" \
    "pass the base commit as the argument: skipped"
  exit 77
fi

# git-clang-format (14) exits 0 whether or not it has a diff to show: a
# finding is a diff on its output.
set +e
out=$("$gcf" --binary "$fmt" --diff --quiet --extensions c,h,cc,cpp,hpp,cu,cuh "$base" --)
rc=$?
set -e
if [ $rc != 0 ]; then
  echo "format: git-clang-format failed (exit $rc)" >&2
  exit 1
fi
if grep -q '^diff --git' <<< "$out"; then
  echo "$out"
  echo "format: lines changed since ${base:0:12} do not follow .clang-format; the diff above" \
    "fixes them (or run: git clang-format ${base:0:12})" >&2
  exit 1
fi
echo "format: the C, C++ and CUDA lines changed since ${base:0:12} follow .clang-format"
