#!/usr/bin/env bash
# Leak check of a 1,000-frame stream (issue 14): builds objdetect with AddressSanitizer (whose
# LeakSanitizer reports every block still unreachable at exit) in .build-asan, pipes 1,000
# generated 320x240 PPM frames (the astronaut fixture sliding over a dark frame, with gaps) into
# `objdetect - --mode stream --model face-short` and fails on any leak report.
#
#   Tests/Sanitizers/run_leaks.sh [FRAMES]
#
# Needs python3 with Pillow (to draw the frames). valgrind works too but is too slow here: the
# worker pool's spinning threads run serialized under it (about 10 s a frame on 2 busy cores).
set -euo pipefail
cd "$(dirname "$0")/../.."
frames="${1:-1000}"
swift build -c release --product objdetect --sanitize=address --build-path .build-asan
input="$(mktemp)"; log="$(mktemp)"
trap 'rm -f "$input" "$log"' EXIT
python3 - "$frames" "$input" <<'PY'
import sys
from PIL import Image
count, path = int(sys.argv[1]), sys.argv[2]
face = Image.open("Fixtures/astronaut.png").convert("RGB").resize((200, 200))
with open(path, "wb") as out:
    for i in range(count):
        frame = Image.new("RGB", (320, 240), (16, 16, 16))
        if i % 540 < 500:
            frame.paste(face, ((i % 80) * 3 // 2, 20 + i % 20))
        out.write(b"P6\n320 240\n255\n" + frame.tobytes())
PY
export ASAN_OPTIONS="detect_leaks=1 ${ASAN_OPTIONS:-}"
status=0
.build-asan/release/objdetect - --mode stream --model face-short --quiet < "$input" > /dev/null 2> "$log" || status=$?
cat "$log"
if grep -q "LeakSanitizer\|AddressSanitizer" "$log"; then
    echo "run_leaks: sanitizer reports above (exit status $status)" >&2
    exit 1
fi
echo "run_leaks: $frames frames, no leaks reported (exit status $status)"
exit "$status"
