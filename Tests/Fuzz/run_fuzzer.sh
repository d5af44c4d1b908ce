#!/bin/sh
# Builds and runs a libFuzzer target over the TFLite reader (FlatBuffers, schema, FlexBuffers,
# metadata, ZIP). Usage: Tests/Fuzz/run_fuzzer.sh [SECONDS]   (default 60)
# Seeds: the small shared models (../shared/models). Crashes are written to Tests/Fuzz/out/.
set -eu
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../.." && pwd)
out="$here/out"
mkdir -p "$out/corpus"
for m in dilated_conv face_detection_short_range automl_labeler_model; do
  f="$root/../shared/models/$m.tflite"
  [ -f "$f" ] && cp "$f" "$out/corpus/" || true
done
src="$root/Sources/DetectorCore"
swiftc -sanitize=fuzzer,address -parse-as-library -O -module-name DetectorCore \
  "$src"/FlatBuffers/*.swift "$src"/TFLite/*.swift "$src"/Codecs/Zlib/*.swift \
  "$here/TFLiteReaderFuzzTarget.swift" -o "$out/tflite_reader_fuzzer"
cd "$out"
./tflite_reader_fuzzer -max_total_time="${1:-60}" -max_len=300000 -rss_limit_mb=2048 corpus
