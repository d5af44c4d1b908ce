#!/usr/bin/env bash
# Runs the concurrency tests under Swift's thread sanitizer (issue 14):
#   - RunningModeTests: the live-stream processor (ordering, drops, concurrent submissions, AsyncStream),
#   - StreamModeTests: video and live-stream modes of ObjectDetector with real models,
#   - ConcurrentDetectorTests: one detector shared by many threads, detectors on their own threads,
#   - ConcurrentTaskTests: one detector and one labeler called from 64 Swift tasks at once,
#   - TaskErrorTests: timestamps and the end of a live stream as task errors,
#   - WorkerPoolTests: the kernels' worker pool (nested and concurrent jobs),
#   - DetectInputOutputTests.testLiveModeDeliversOrDropsEveryFrame: objdetect --live (the CLI is
#     built with the sanitizer too and runs from the same build folder).
#
#   Tests/Sanitizers/run_tsan.sh            # those tests
#   Tests/Sanitizers/run_tsan.sh 'Foo|Bar'  # another --filter
#
# A release build with -sanitize=thread in .build-tsan (kept apart from .build); the first build
# takes several minutes on 2 cores. Any ThreadSanitizer report makes the run fail (exit code 66).
# Tests needing ../shared skip without it, unless CI=true.
set -euo pipefail
cd "$(dirname "$0")/../.."
filter="${1:-RunningModeTests|StreamModeTests|ConcurrentDetectorTests|ConcurrentTaskTests|TaskErrorTests|WorkerPoolTests|testLiveModeDeliversOrDropsEveryFrame}"
export OBJDETECT_SANITIZER=thread   # heavy tests run fewer repetitions (10–20× slower here)
export TSAN_OPTIONS="exitcode=66 history_size=4 ${TSAN_OPTIONS:-}"
log="$(mktemp)"
trap 'rm -f "$log"' EXIT
status=0
swift test -c release -Xswiftc -enable-testing --sanitize=thread --build-path .build-tsan --filter "$filter" 2>&1 \
    | tee "$log" || status=$?
if grep -q "WARNING: ThreadSanitizer" "$log"; then
    echo "run_tsan: $(grep -c 'WARNING: ThreadSanitizer' "$log") ThreadSanitizer report(s)" >&2
    exit 1
fi
echo "run_tsan: no ThreadSanitizer reports (swift test exit status $status)"
exit "$status"
