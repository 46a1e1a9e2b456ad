#!/usr/bin/env bash
# Every benchmark program refuses a bad command line — a number that is
# not one ("abc", "1e8" for a count, "12x"), out of its range ("-1", "0"
# pipelines, a 1e8-face message), an empty list item, a missing value —
# with a message naming the option and exit status 2, before it touches
# CUDA or starts a pipeline. No GPU needed: CUDA sees no device here
# (CUDA_VISIBLE_DEVICES is emptied), so a program that let a bad value
# through goes on to "no CUDA device" (77) or to work, not to 2.
#
#   bad-args.sh BENCH_BUILD_DIR
set -u
dir=${1:?usage: bad-args.sh BENCH_BUILD_DIR}
export CUDA_VISIBLE_DEVICES=
export GST_REGISTRY=${GST_REGISTRY:-$dir/registry.bin}
fails=0 runs=0
out=$(mktemp -d "${TMPDIR:-/tmp}/cudavision-bad-args.XXXXXX") || exit 1
trap 'rm -rf "$out"' EXIT

# run PROGRAM ARGS...: status and stderr in $rc and $out/err (20 s at most:
# a program that took the line would otherwise run its benchmark)
run () {
  local prog=$1
  shift
  runs=$((runs + 1))
  timeout 20 "$dir/$prog" "$@" >"$out/out" 2>"$out/err" </dev/null
  rc=$?
}

# bad OPTION PROGRAM ARGS...: exit status 2 and OPTION named on stderr
bad () {
  local opt=$1
  shift
  run "$@"
  if [ "$rc" != 2 ] || ! grep -qF -- "$opt" "$out/err"; then
    fails=$((fails + 1))
    echo "FAIL: $* -> exit $rc (expected 2 and a message naming $opt)"
    sed 's/^/    /' "$out/err" | head -n 3
  else
    echo "ok: $* -> 2: $(head -n 1 "$out/err")"
  fi
}

# good STATUS PROGRAM ARGS...: a valid line gets past the parser (STATUS:
# 77, no CUDA device, or 0 for a program that needs none)
good () {
  local want=$1
  shift
  run "$@"
  if [ "$rc" != "$want" ]; then
    fails=$((fails + 1))
    echo "FAIL: $* -> exit $rc (a valid command line; expected $want)"
    sed 's/^/    /' "$out/err" | head -n 3
  else
    echo "ok: $* -> $rc"
  fi
}

p=cudavision-bench-message
bad --faces $p --faces abc
bad --faces $p --faces -1
bad --faces $p --faces 1e8
bad --faces $p --faces 100000000
bad --faces $p --faces 0,,4
bad --faces $p --faces
bad --gaps $p --gaps -5
bad --gaps $p --gaps 10x
bad --messages $p --messages 0
bad --messages $p --messages " 5"
good 0 $p --faces 0,2 --gaps 0 --messages 5

p=cudavision-streams
bad --pipelines $p --pipelines 0
bad --pipelines $p --pipelines -3
bad --pipelines $p --pipelines 1,abc
bad --pipelines $p --pipelines 100000
bad --sizes $p --sizes 1920x
bad --sizes $p --sizes 0x0
bad --frames $p --frames 1e8
bad --frames $p --frames -1
bad --devices $p --devices -1
bad --paced-rounds $p --paced-rounds 0
bad --paced-gap-us $p --paced-gap-us -5
bad --backend $p --backend gpu
good 77 $p --pipelines 1,2 --sizes 1280x720 --frames 10

p=cudavision-soak
bad --frames $p --frames abc
bad --frames $p --frames 0
bad --system-frames $p --system-frames 1e8
bad --window $p --window -1
bad --size $p --size 1920
bad --size $p --size 99999x99999
bad --chains $p --chains canny,nope
bad --backend $p --backend gpu
good 77 $p --chains canny --frames 10 --size 640x480

p=cudavision-streams-decode
bad --pipelines $p --pipelines 0
bad --pipelines $p --pipelines -3
bad --pipelines $p --pipelines 1,,2
bad --seconds $p --seconds abc
bad --seconds $p --seconds inf
bad --clip-size $p --clip-size 641x480
bad --clip-frames $p --clip-frames 1e8
bad --queue $p --queue -1
bad --rt-max $p --rt-max 0

p=cudavision-bench-face
bad --frames $p --frames abc
bad --frames $p --frames 0
bad --sizes $p --sizes 640x
bad --schedules $p --schedules 1-2:abc
bad --schedules $p --schedules 1-2:32/0
bad --schedules $p --schedules 1--2:32
bad --schedules $p --schedules 2-4:32pnx
bad --modes $p --modes fastest
good 77 $p --sizes 640x480 --modes static,static:64x4 --schedules 1-2-4:32/1p8,2-4:32pn --frames 2

p=cudavision-bench-flow
bad --iters $p --iters abc
bad --iters $p --iters 2
bad --sizes $p --sizes 0x0
bad --pair $p --pair nonsense
good 77 $p --sizes 640x480 --iters 5

p=cudavision-bench-pipeline
bad --frames $p --frames abc
bad --frames $p --frames 0
bad --size $p --size 99999x1
bad --format $p --format NOPE
good 77 $p --size 640x480 --frames 5

p=cudavision-bench-cpu
bad --reps $p --reps abc
bad --reps $p --reps 0
bad --reps $p --reps 100000000
bad --threads $p --threads -5
bad --sizes $p --sizes 0x5

p=cudavision-bench-kernels
bad --iters $p --iters abc
bad --iters $p --iters 0
bad --iters $p --iters 1e8
bad --sizes $p --sizes abc
good 77 $p --sizes 640x480 --iters 5

p=cudavision-bench-launch-scaling
bad --frames $p --frames abc
bad --frames $p --frames
bad --threads $p --threads 0
bad --threads $p --threads 1,-2
bad --size $p --size 0x1
good 77 $p --size 32x1 --frames 10 --threads 1

echo "$((runs - fails)) of $runs command lines as expected"
[ "$fails" = 0 ]
