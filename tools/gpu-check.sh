#!/usr/bin/env bash
# The GPU check of the tree, for anyone with an NVIDIA GPU (docs/GPU-TESTING.md):
#   build    meson setup for this machine's GPU (-Dgpu_arch from nvidia-smi), ninja
#   suite    the gpu test suite; a SKIP counts as a failure (a GPU is present)
#   sanitize compute-sanitizer memcheck, racecheck, synccheck, initcheck on
#            every GPU test program
#   soak     cudavision-soak: long runs of the chains cameras use
#   streams  cudavision-streams: 1-8 pipelines per context, host time per
#            element; on two or more GPUs, pipelines spread with device-id
#   decode   cudavision-streams-decode: pipelines fed by nvh264dec (a 1080p
#            clip it makes), the largest number per chain that holds 30
#            frames/s with no frame late or lost
# and ends with one table: check, result, figure. Exit status 0 only when
# every check that ran passed.
#
#   tools/gpu-check.sh [--quick] [--only PARTS] [--skip PARTS] [--tests NAMES]
#                      [--tools TOOLS] [--filter GTEST_FILTER] [--builddir DIR]
#                      [--out DIR] [--arch CC]
#                      [--bundle] [--jobs N]
#
#   --quick        shorter runs: sanitizers skip the large-frame and
#                  every-mode tests (a gtest filter), soak 3000 frames
#                  (1000 from system memory), streams 300 frames a pipeline,
#                  decode: chains decode,face,corners, shorter runs
#   --only PARTS   comma list of build,suite,sanitize,soak,streams,decode
#   --skip PARTS   the same, left out
#   --tests NAMES  comma list of GPU test names (meson's: gray-gpu,
#                  edges-gpu, oom-gpu, ...): the suite and the sanitizers run
#                  only those
#   --tools TOOLS  sanitizer tools (default memcheck,racecheck,synccheck,initcheck)
#   --filter F     gtest filter for the sanitizer runs (replaces --quick's)
#   --builddir DIR default build-gpu
#   --out DIR      logs (default DIR/gpu-check)
#   --arch CC      e.g. 90; default: nvidia-smi's compute capability
#   --bundle       the GPU machine of our CI: no GStreamer or OpenCV
#                  installed; unpacks .devbundle.tgz if needed, sources
#                  .devbundle/env.sh and puts its Haar cascades where the
#                  tests look (/usr/share/opencv4/haarcascades)
#   --jobs N       meson test processes (default 4)
#   --sanitize-jobs N  sanitizer runs at a time, one program each (default 1;
#                  racecheck of every program one after the other takes
#                  over an hour on an H100; processes on one GPU take
#                  turns, so racecheck runs slow down everything beside them)
#   --sanitize-shards K  each program's tests split into K processes
# Environment: STREAMS_OVERHEAD_CHAINS (';'-separated) the chains whose
# last element's host time is measured besides the main chain's;
# PACED_ROUNDS how many paced runs give those figures (default 3: the
# median of their medians; one run's median moves by up to 2x between
# runs on the GPU machine, docs/RELIABILITY.md); SANITIZE_TIMEOUT stops a sanitizer run after that many seconds (a
# failure, said as such); SOAK_FRAMES, SOAK_SYSTEM_FRAMES, STREAMS_FRAMES
# override the run lengths; CUDA_HOME the toolkit (default /usr/local/cuda);
# BENCH_EXTRA_ARGS is added to the soak and streams command lines;
# STREAMS_DECODE_ARGS to cudavision-streams-decode's (e.g. --chains face).
set -uo pipefail
cd "$(dirname "$0")/.." || exit 2

quick=0 only="" skip="" tests="" gfilter="" tools="memcheck,racecheck,synccheck,initcheck" bdir=build-gpu out="" arch=""
bundle=0 jobs=4 sjobs=1 sshards=1 stimeout=${SANITIZE_TIMEOUT:-}
while [ $# -gt 0 ]; do
  case $1 in
    --quick) quick=1; shift ;;
    --only) only=$2; shift 2 ;;
    --skip) skip=$2; shift 2 ;;
    --tests) tests=$2; shift 2 ;;
    --tools) tools=$2; shift 2 ;;
    --filter) gfilter=$2; shift 2 ;;
    --builddir) bdir=$2; shift 2 ;;
    --out) out=$2; shift 2 ;;
    --arch) arch=$2; shift 2 ;;
    --bundle) bundle=1; shift ;;
    --jobs) jobs=$2; shift 2 ;;
    --sanitize-jobs) sjobs=$2; shift 2 ;;
    --sanitize-shards) sshards=$2; shift 2 ;;
    -h|--help) sed -n '2,/^set -uo/p' "$0" | sed '$d; s/^# \{0,1\}//'; exit 0 ;;
    *) echo "unknown option $1 (--help)" >&2; exit 2 ;;
  esac
done
out=${out:-$bdir/gpu-check}
mkdir -p "$out"
cuda=${CUDA_HOME:-/usr/local/cuda}
export PATH=$cuda/bin:$PATH

wanted() {  # wanted PART: selected by --only / --skip
  [[ -z $only || ",$only," == *",$1,"* ]] && [[ ",$skip," != *",$1,"* ]]
}

rows=()   # "check|result|figure"
failed=0
row() {
  rows+=("$1|$2|$3")
  # OVER, MISS: a target missed (host time per element, streams per GPU),
  # reported, not a failure
  [[ $2 == PASS* || $2 == SKIP* || $2 == OVER* || $2 == MISS* ]] || failed=1
  printf '== %-28s %-6s %s\n' "$1" "$2" "$3"
}

if [ $bundle = 1 ]; then
  if [ ! -f .devbundle/env.sh ]; then
    [ -f .devbundle.tgz ] || { echo "--bundle: neither .devbundle/ nor .devbundle.tgz here" >&2; exit 2; }
    tar xzf .devbundle.tgz
  fi
  # shellcheck disable=SC1091
  source .devbundle/env.sh
  if [ ! -d /usr/share/opencv4/haarcascades ] && [ -d .devbundle/share/opencv4/haarcascades ]; then
    mkdir -p /usr/share/opencv4 && cp -r .devbundle/share/opencv4/haarcascades /usr/share/opencv4/
  fi
fi

if ! command -v nvidia-smi >/dev/null || ! nvidia-smi -L >/dev/null 2>&1; then
  echo "no NVIDIA GPU (nvidia-smi -L fails): this script needs one; CI runs the CPU suites (tools/test.sh)" >&2
  exit 2
fi
gpus=$(nvidia-smi -L | grep -c '^GPU')
gpu_name=$(nvidia-smi --query-gpu=name --format=csv,noheader | head -1)
if [ -z "$arch" ]; then
  arch=$(nvidia-smi --query-gpu=compute_cap --format=csv,noheader | head -1 | tr -d '. ')
fi
echo "gpu-check: $gpus x $gpu_name (sm_$arch), driver $(nvidia-smi --query-gpu=driver_version --format=csv,noheader | head -1), $(date -u +%F)"
echo "logs: $out"

# ------------------------------------------------------------------ build
if wanted build; then
  t0=$SECONDS
  ok=1
  if [ ! -f "$bdir/build.ninja" ]; then
    meson setup "$bdir" -Dcudatoolkit="$cuda" -Dgpu_arch="$arch" >"$out/build.log" 2>&1 || ok=0
  else
    meson configure "$bdir" -Dgpu_arch="$arch" >"$out/build.log" 2>&1 || ok=0
  fi
  [ $ok = 1 ] && { ninja -C "$bdir" >>"$out/build.log" 2>&1 || ok=0; }
  if [ $ok = 1 ]; then row build PASS "sm_$arch, $((SECONDS - t0)) s"; else row build FAIL "see $out/build.log"; tail -20 "$out/build.log"; fi
fi
[ -f "$bdir/build.ninja" ] || { echo "no build in $bdir: run the build part" >&2; exit 1; }

# ------------------------------------------------------------------ suite
if wanted suite; then
  t0=$SECONDS
  sel=()
  if [ -n "$tests" ]; then IFS=, read -ra sel <<<"$tests"; else sel=(--suite gpu); fi
  meson test -C "$bdir" --print-errorlogs --num-processes "$jobs" "${sel[@]}" >"$out/suite.log" 2>&1
  cp "$bdir/meson-logs/testlog.json" "$out/suite-testlog.json" 2>/dev/null
  counts=$(python3 - "$bdir/meson-logs/testlog.json" <<'PY'
import json, sys
c = {}
bad = []
for line in open(sys.argv[1]):
    t = json.loads(line)
    r = t.get("result", "")
    c[r] = c.get(r, 0) + 1
    if r != "OK":
        bad.append(f"{t['name']}={r}")
ok = c.get("OK", 0)
fail = sum(v for k, v in c.items() if k not in ("OK", "SKIP"))
print(ok, fail, c.get("SKIP", 0), " ".join(bad))
PY
)
  read -r n_ok n_fail n_skip bad <<<"$counts"
  fig="$n_ok passed, $n_fail failed, $n_skip skipped, $((SECONDS - t0)) s${bad:+ ($bad)}"
  # a GPU is present: a skip means the device was not usable
  if [ "${n_fail:-1}" = 0 ] && [ "${n_skip:-1}" = 0 ] && [ "${n_ok:-0}" -gt 0 ]; then row "gpu suite" PASS "$fig"
  else row "gpu suite" FAIL "$fig"; fi
fi

# -------------------------------------------------------------- sanitize
if wanted sanitize; then
  programs=()
  if [ -n "$tests" ]; then
    IFS=, read -ra names <<<"$tests"
    for n in "${names[@]}"; do [ -x "$bdir/tests/test-gpu-$n" ] && programs+=("$bdir/tests/test-gpu-$n"); done
    [[ ",$tests," == *",oom-gpu,"* ]] && programs+=("$bdir/tests/test-gpu-oom")
  else
    for p in "$bdir"/tests/test-gpu-*; do [ -x "$p" ] && [ -f "$p" ] && programs+=("$p"); done
  fi
  filter=()
  # --quick: the large-frame, every-mode and long-cycle tests stay out
  [ $quick = 1 ] && filter=(--gtest_filter='-*Sizes*:*Largest*:*4K*:*Mosaic*:*EveryMode*:*EveryBlockSizing*:*BlockSizingMode*:*Bundled*:*TwoHundred*:*EveryRegisteredKernel*:*EveryCase*')
  [ -n "$gfilter" ] && filter=(--gtest_filter="$gfilter")
  IFS=, read -ra tool_list <<<"$tools"
  for tool in "${tool_list[@]}"; do
    t0=$SECONDS
    n_err=0 n_api=0 n_notready=0 n_exp=0 bad=()
    # --sanitize-jobs N: N programs at a time (each on the one GPU; their
    # logs stay apart), then the logs are read in order
    # --sanitize-shards K: each program's tests split K ways (gtest's
    # GTEST_TOTAL_SHARDS), one process per shard, logs joined after
    running=0
    for p in "${programs[@]}"; do
      name=$(basename "$p")
      for ((i = 0; i < sshards; i++)); do
        log=$out/$tool-$name.log
        [ "$sshards" -gt 1 ] && log=$out/$tool-$name.shard$i.log
        # the tests' own child processes (cudavision-tune) are checked too
        # CUDAVISION_SANITIZER_PASS: the few sweeping tests sweep less
        # (tests/common/test_util.h, sanitizer_pass)
        ( export GTEST_TOTAL_SHARDS=$sshards GTEST_SHARD_INDEX=$i CUDAVISION_SANITIZER_PASS=1
          ${stimeout:+timeout "$stimeout"} compute-sanitizer --tool "$tool" --error-exitcode 99 --target-processes all \
            "$p" "${filter[@]}" >"$log" 2>&1
          echo $? >"$log.rc" ) &
        running=$((running + 1))
        if [ $running -ge "$sjobs" ]; then wait -n; running=$((running - 1)); fi
      done
    done
    wait
    for p in "${programs[@]}"; do
      name=$(basename "$p")
      log=$out/$tool-$name.log
      if [ "$sshards" -gt 1 ]; then
        # one log, one status: the worst of the shards (124 a time-out, 99 errors)
        rc=0
        for ((i = 0; i < sshards; i++)); do
          cat "$out/$tool-$name.shard$i.log"
          r=$(cat "$out/$tool-$name.shard$i.log.rc" 2>/dev/null || echo 1)
          [ "$r" = 124 ] && rc=124
          [ "$r" != 0 ] && [ $rc = 0 ] && rc=$r
          [ "$r" = 99 ] && [ $rc != 124 ] && rc=99
        done >"$log"
        echo $rc >"$log.rc"
        rm -f "$out/$tool-$name".shard*.log*
      fi
      rc=$(cat "$log.rc" 2>/dev/null || echo 1)
      e=$(grep -o 'ERROR SUMMARY: [0-9]*' "$log" | awk '{s += $3} END {print s + 0}')
      api=$(grep -c 'Program hit' "$log")
      nr=$(grep -c 'cudaErrorNotReady' "$log")
      # test-gpu-oom asks for more device memory than there is, on purpose:
      # the failed cudaMalloc and the cudaGetLastError that clears it are
      # API errors to the sanitizer, and what the test checks is that they
      # become a clear GStreamer error. Those are counted apart; any other
      # error in that program still fails.
      exp=0
      if [ "$name" = test-gpu-oom ]; then
        exp=$(grep -c 'Program hit cudaErrorMemoryAllocation' "$log")
        [ "$exp" -gt "$e" ] && exp=$e
        e=$((e - exp)); api=$((api - exp))
        [ $rc = 99 ] && [ "$e" = 0 ] && ! grep -q '^\[  FAILED' "$log" && rc=0
      fi
      n_err=$((n_err + e)); n_api=$((n_api + api)); n_notready=$((n_notready + nr)); n_exp=$((n_exp + exp))
      if [ $rc = 99 ] || [ "$e" != 0 ]; then bad+=("$name: $e errors")
      elif [ "$rc" = 124 ]; then bad+=("$name: over SANITIZE_TIMEOUT=${stimeout}s")
      elif [ $rc != 0 ]; then bad+=("$name: test failed (rc $rc)"); fi
    done
    fig="${#programs[@]} programs, $n_err errors, $n_api API errors ($n_notready cudaErrorNotReady), $((SECONDS - t0)) s"
    [ "$n_exp" -gt 0 ] && fig="$fig; $n_exp expected out-of-memory API errors in test-gpu-oom"
    [ ${#bad[@]} -gt 0 ] && fig="$fig; ${bad[*]}"
    if [ ${#bad[@]} = 0 ]; then row "compute-sanitizer $tool" PASS "$fig"; else row "compute-sanitizer $tool" FAIL "$fig"; fi
  done
fi

# ------------------------------------------------------------------ soak
if wanted soak; then
  frames=${SOAK_FRAMES:-$([ $quick = 1 ] && echo 3000 || echo 100000)}
  sframes=${SOAK_SYSTEM_FRAMES:-$([ $quick = 1 ] && echo 1000 || echo 10000)}
  window=$([ "$frames" -ge 10000 ] && echo 1000 || echo 500)
  "$bdir/bench/cudavision-soak" --frames "$frames" --system-frames "$sframes" --window "$window" \
    --size 1920x1080 ${BENCH_EXTRA_ARGS:-} >"$out/soak.log" 2>&1
  rc=$?
  if ! grep -q '^SOAK ' "$out/soak.log"; then
    row soak FAIL "no result (rc $rc): see $out/soak.log"; tail -5 "$out/soak.log"
  fi
  while read -r _ name result rest; do
    fig=$(sed -E 's/frames=([0-9]+) lost=([0-9-]+) fps=([0-9.]+) frame_ms=([0-9.>-]+) stability=([0-9.]+) device_mib=([0-9.>-]+) rss_mib=([0-9.>-]+) window_spread=([0-9.]+) window_median_ms=([0-9.]+)/\1 frames at 1080p, \2 lost, \3 fps, frame ms \4 (median \9), slowest\/fastest 0.5 s span \5 (1000-frame window \8), device MiB \6, RSS MiB \7/' <<<"$rest")
    row "soak $name" "$result" "$fig"
  done < <(grep '^SOAK ' "$out/soak.log")
fi

# --------------------------------------------------------------- streams
if wanted streams; then
  frames=${STREAMS_FRAMES:-$([ $quick = 1 ] && echo 300 || echo 2000)}
  "$bdir/bench/cudavision-streams" --pipelines 1,2,4,8 --sizes 1280x720,1920x1080 --frames "$frames" \
    ${BENCH_EXTRA_ARGS:-} >"$out/streams.log" 2>&1
  rc=$?
  if ! grep -q '^STREAMS ' "$out/streams.log"; then
    row streams FAIL "no result (rc $rc): see $out/streams.log"; tail -5 "$out/streams.log"
  fi
  for size in 1280x720 1920x1080; do
    line=$(grep "^STREAMS size=$size " "$out/streams.log" | tr '\n' ' ')
    [ -z "$line" ] && continue
    fps=$(grep -o 'pipelines=[0-9]* devices=[^ ]* fps=[0-9.]*' <<<"$line" | sed -E 's/pipelines=([0-9]+) devices=[^ ]+ fps=([0-9.]+)/\1: \2/' | paste -sd';' | sed 's/;/, /g')
    x4=$(grep -o "pipelines=4 [^ ]* fps=[0-9.]* speedup=[0-9.]*" <<<"$line" | sed 's/.*speedup=//')
    checks=$(grep -o 'device_check=[0-9]*/[0-9]*' <<<"$line" | awk -F'[=/]' '{a += $2; b += $3} END {print a "/" b}')
    res=PASS
    grep -q 'error=' <<<"$line" && res=FAIL
    awk -F/ '{exit !($1 == $2 && $2 > 0)}' <<<"$checks" || res=FAIL
    row "streams $size" "$res" "frames/s by pipeline count ${fps}; 4 vs 1: ${x4:-?}x; frames on their device $checks"
  done
  # host_rows LOG [ELEMENT [NOTE]]: a row per paced OVERHEAD line of LOG
  # (only ELEMENT's, where given); with --paced-rounds the median of the
  # rounds' medians, each round's after it
  host_rows() {
    local _ size pipes el med p90 verdict rounds
    while read -r _ size pipes el med p90 verdict rounds; do
      [ "$pipes" = "pipelines=1" ] && [[ -z ${2:-} || ${el#element=} == "$2" ]] || continue
      row "host time ${el#element=} ${size#size=}" "$([ "$verdict" = PASS ] && echo PASS || echo OVER)" \
        "${med#median_us=} us median, ${p90#p90_us=} us p90${rounds:+ (each round: ${rounds#rounds=})} (target <= 20${3:+; $3})"
    done < <(grep '^OVERHEAD ' "$1")
  }
  host_rows "$out/streams.log"
  # the other elements' host time: one pipeline each, paced, on chains
  # that end in them (the same OVERHEAD lines; only the last element's row)
  IFS=';' read -ra ochains <<<"${STREAMS_OVERHEAD_CHAINS:-cudagray ! cudaotsu;cudagray ! cudaharris;cudagray ! cudaflow;cudafacedetect}"
  for ch in "${ochains[@]}"; do
    last=$(sed 's/.*!//; s/^ *//; s/ .*//' <<<"$ch")
    olog=$out/streams-$last.log
    "$bdir/bench/cudavision-streams" --pipelines 1 --sizes 1280x720,1920x1080 --frames "$frames" --chain "$ch" \
      --paced-rounds "${PACED_ROUNDS:-3}" ${BENCH_EXTRA_ARGS:-} >"$olog" 2>&1 || row "host time $last" FAIL "no result: see $olog"
    host_rows "$olog" "$last" "chain $ch"
  done
  if [ "$gpus" -ge 2 ]; then
    # 8 pipelines on GPU 0; the same 8 spread over GPUs 0 and 1; and 16
    # over both (each GPU as loaded as the one): the target is on the
    # better of the two spreads
    "$bdir/bench/cudavision-streams" --pipelines 8 --sizes 1920x1080 --frames "$frames" --devices 0 \
      >"$out/streams-1gpu.log" 2>&1
    "$bdir/bench/cudavision-streams" --pipelines 8,16 --sizes 1920x1080 --frames "$frames" --devices 0,1 \
      >"$out/streams-2gpu.log" 2>&1
    one=$(grep -o 'fps=[0-9.]*' "$out/streams-1gpu.log" | head -1 | cut -d= -f2)
    two=$(grep 'pipelines=8 ' "$out/streams-2gpu.log" | grep -o 'fps=[0-9.]*' | head -1 | cut -d= -f2)
    two16=$(grep 'pipelines=16 ' "$out/streams-2gpu.log" | grep -o 'fps=[0-9.]*' | head -1 | cut -d= -f2)
    chk=$(grep -o 'device_check=[0-9]*/[0-9]*' "$out/streams-2gpu.log" | awk -F'[=/]' '{a += $2; b += $3} END {print a "/" b}')
    ratio=$(awk -v a="${one:-0}" -v b="${two:-0}" 'BEGIN {printf "%.2f", (a > 0 ? b / a : 0)}')
    ratio16=$(awk -v a="${one:-0}" -v b="${two16:-0}" 'BEGIN {printf "%.2f", (a > 0 ? b / a : 0)}')
    res=$(awk -v r="$ratio" -v q="$ratio16" 'BEGIN {print (r >= 1.9 || q >= 1.9 ? "PASS" : "FAIL")}')
    awk -F/ '{exit !($1 == $2 && $2 > 0)}' <<<"${chk:-0/0}" || res=FAIL
    row "two GPUs (device-id 0 and 1)" "$res" "1080p: 8 pipelines ${one:-?} fps on GPU 0; on 0+1 8 pipelines ${two:-?} (${ratio}x), 16 ${two16:-?} (${ratio16}x); frames on their device $chk"
  else
    row "two GPUs (device-id 0 and 1)" "SKIP" "one GPU here: device-id selection is tested by edges-gpu (DeviceSelection.*)"
  fi
fi

# ---------------------------------------------------------------- decode
if wanted decode; then
  # N pipelines in one process, each nvh264dec ! chain, unpaced and paced
  # at 30 frames/s; one row per chain: the largest N that holds real time,
  # what was saturated at the first N that did not (nvidia-smi dmon, CPU)
  log=$out/streams-decode.log
  dargs=()
  # shellcheck disable=SC2054  # commas inside the values, not between elements
  [ $quick = 1 ] && dargs=(--chains decode,face,corners --pipelines 1,16,32,64 --seconds 3 --rt-seconds 5 --max-seconds 100)
  # shellcheck disable=SC2086
  "$bdir/bench/cudavision-streams-decode" --dmon "${dargs[@]}" ${STREAMS_DECODE_ARGS:-} >"$log" 2>&1
  rc=$?
  if grep -q "element 'nvh264dec' not found" "$log"; then
    row "streams per GPU" SKIP "no nvh264dec (NVDEC) here: see $log"
  elif ! grep -q '^STREAMS_DECODE_MAX ' "$log"; then
    row "streams per GPU" FAIL "no result (rc $rc): see $log"; tail -5 "$log"
  fi
  field() { grep -o " $1=[^ ]*" <<<"$line" | head -1 | cut -d= -f2; }  # field NAME: NAME=VALUE of $line
  while read -r line; do
    chain=$(field chain)
    res=PASS
    grep -q " target=[0-9]* MISSED" <<<"$line" && res=MISS
    grep "^STREAMS_DECODE .*chain=$chain " "$log" | grep -q ' error=' && res=FAIL
    t=$(field target)
    row "streams per GPU $chain" "$res" "$(field realtime_n) streams at $(field size) 30 frames/s (first failing: $(field first_fail), saturated there: $(field bound)); unpaced best $(field unpaced_best_fps) frames/s at N=$(field unpaced_best_n)${t:+; target >= $t}"
  done < <(grep '^STREAMS_DECODE_MAX ' "$log")
fi

echo
echo "gpu-check on $gpus x $gpu_name, $(date -u +%F):"
echo
echo "| check | result | figure |"
echo "|---|---|---|"
for r in "${rows[@]}"; do
  IFS='|' read -r c res fig <<<"$r"
  echo "| $c | $res | $fig |"
done
exit $failed
