#!/usr/bin/env bash
# Runs the fuzz targets for a time budget each and prints a table: executions, coverage edges,
# crashes and slowest input per target. Exits 1 if any target crashed, leaked, timed out
# (-timeout=1) or ran out of memory.
#
#   Tests/Fuzz/run_all.sh SECONDS [TARGET...]      (default: every target)
#   FUZZ_RUNS=10000000 Tests/Fuzz/run_all.sh 7200 png   (stop at 10^7 executions or 2 h)
#   FUZZ_TIMEOUT=10 Tests/Fuzz/run_all.sh 60   (libFuzzer's wall-clock -timeout, 1 s by default,
#       for a machine busy with other work; the binary also traps any input that takes more than
#       FUZZ_CPU_LIMIT_MS = 1000 ms of its own CPU time, however busy the machine is)
#   FUZZ_BINARY=/tmp/objdetect_fuzz Tests/Fuzz/run_all.sh 60   (run that binary, no build)
#
# Builds Tests/Fuzz/out/objdetect_fuzz first (build.sh, incremental). Seeds are read in place
# from ../shared (never copied into the project); what the fuzzer adds goes to
# Tests/Fuzz/out/corpus/TARGET, crash inputs to Tests/Fuzz/out/crashes/TARGET, logs to
# Tests/Fuzz/out/logs. The inputs of Tests/Fuzz/Regressions/TARGET (crashes and slow inputs
# found before) are run too. Targets run one after another under `nice -n 10`.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../.." && pwd)
shared="$root/../shared"
out="$here/out"
mkdir -p "$out"
budget=${1:?usage: run_all.sh SECONDS [TARGET...]}
shift
all=(png jpeg image ppm_stream image_stream inflate zip tflite model mot decoder_config automl cli)
if [ $# -gt 0 ]; then targets=("$@"); else targets=("${all[@]}"); fi
# FUZZ_BINARY: run a binary built before (e.g. a copy kept for a long campaign) instead.
binary=${FUZZ_BINARY:-$out/objdetect_fuzz}
if [ -z "${FUZZ_BINARY:-}" ]; then
  "$here/build.sh" >"$out/build.log" 2>&1 || { cat "$out/build.log" >&2; exit 1; }
fi

# seeds TARGET: the seed folders (or files) of a target, from ../shared.
seeds() {
  local s="$out/seeds/$1"
  case $1 in
    png) echo "$shared/pngsuite" ;;
    jpeg|image|image_stream)
      local j="$out/seeds/jpeg"
      if [ ! -d "$j" ]; then mkdir -p "$j"; python3 "$here/extract_seeds.py" jpeg "$shared/jpeg" "$j" >&2 2>/dev/null; fi
      if [ "$1" = jpeg ]; then echo "$j"; else echo "$shared/pngsuite $j $shared/ppm"; fi ;;
    ppm_stream) echo "$shared/ppm" ;;
    inflate)  # the IDAT streams of the PNG suite: zlib (mode byte 1) and raw deflate (mode 2)
      if [ ! -d "$s" ]; then mkdir -p "$s"; python3 "$here/extract_seeds.py" zlib "$shared/pngsuite" "$s" >&2; fi
      echo "$s" ;;
    zip)  # the ZIP archives appended to models with metadata
      if [ ! -d "$s" ]; then mkdir -p "$s"; python3 "$here/extract_seeds.py" zip "$shared/models" "$s" >&2; fi
      echo "$s" ;;
    tflite|model)
      mkdir -p "$s"
      for m in dilated_conv face_detection_short_range; do ln -sf "$shared/models/$m.tflite" "$s/"; done
      [ "$1" = tflite ] && ln -sf "$shared/models/automl_labeler_model.tflite" "$s/"
      echo "$s" ;;
    mot) echo "$shared/mot" ;;
    decoder_config) echo "$shared/sequences" ;;  # its JSON (the other files only teach the parser to fail)
    automl) echo "$shared/models/automl_flowers" ;;
    cli)
      if [ ! -d "$s" ]; then mkdir -p "$s"; python3 "$here/extract_seeds.py" cli "$root/README.md" "$s" >&2; fi
      echo "$s" ;;
  esac
}
maxlen() {
  case $1 in
    tflite|model) echo 240000 ;;
    mot|cli|decoder_config|automl) echo 4096 ;;  # text: long inputs only repeat lines
    *) echo 65536 ;;
  esac
}
dict() {
  case $1 in
    png|inflate) echo png ;;
    jpeg) echo jpeg ;;
    image|image_stream|ppm_stream) echo ppm ;;
    zip|tflite|model) echo tflite ;;
    decoder_config|automl) echo json ;;
    cli) echo cli ;;
    *) echo "" ;;
  esac
}

export LSAN_OPTIONS="suppressions=$here/lsan.supp:print_suppressions=0"
failed=0
printf '%-15s %12s %8s %8s %20s %8s\n' target executions edges crashes slowest_input exec/s
for t in "${targets[@]}"; do
  mkdir -p "$out/corpus/$t" "$out/crashes/$t" "$out/logs" "$out/slowest"
  log="$out/logs/$t.log"
  d=$(dict "$t")
  args=(-max_total_time="$budget" -timeout="${FUZZ_TIMEOUT:-1}" -rss_limit_mb=2048 -max_len="$(maxlen "$t")"
        -print_final_stats=1 -artifact_prefix="$out/crashes/$t/")
  [ -n "${FUZZ_RUNS:-}" ] && args+=(-runs="$FUZZ_RUNS")
  [ -n "$d" ] && args+=(-dict="$here/dict/$d.dict")
  # Crashes, leaks, ASan reports, timeouts and out-of-memory inputs; not libFuzzer's "slow-unit"
  # notes, which count wall time (the CPU limit above is what counts).
  artifacts() { find "$out/crashes/$t" -name 'crash-*' -o -name 'leak-*' -o -name 'timeout-*' -o -name 'oom-*' | wc -l; }
  before=$(artifacts)
  regressions=""
  [ -d "$here/Regressions/$t" ] && regressions="$here/Regressions/$t"  # inputs found before: replayed first
  # shellcheck disable=SC2046,SC2086
  FUZZ_SLOWEST_FILE="$out/slowest/$t" FUZZ_TARGET=$t nice -n 10 "$binary" "${args[@]}" "$out/corpus/$t" $regressions $(seeds "$t") >"$log" 2>&1 && rc=0 || rc=$?
  crashes=$(( $(artifacts) - before ))
  runs=$(sed -n 's/^stat::number_of_executed_units: *//p' "$log" | tail -1)
  slowest=$(sed -n 's/^slowest_input_cpu_ms: \([0-9.]*\) bytes: \([0-9]*\)/\1 ms (\2 B)/p' "$log" | tail -1)
  speed=$(sed -n 's/^stat::average_exec_per_sec: *//p' "$log" | tail -1)
  edges=$(grep -o 'cov: [0-9]*' "$log" | tail -1 | cut -d' ' -f2)
  printf '%-15s %12s %8s %8s %20s %8s\n' "$t" "${runs:-?}" "${edges:-?}" "$crashes" "${slowest:-?}" "${speed:-?}"
  if [ "$rc" -ne 0 ] || [ "$crashes" -ne 0 ]; then
    failed=1
    echo "  $t failed (exit $rc); log: $log" >&2
    grep -m5 -A5 'ERROR\|Fatal error\|deadly signal\|timeout' "$log" >&2 || true
  fi
done
exit $failed
