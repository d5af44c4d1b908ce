#!/bin/sh
# Builds the one fuzz binary, Tests/Fuzz/out/objdetect_fuzz: every target of Tests/Fuzz/Targets/
# with DetectorCore's layers (and the instruction-set tier modules) and the CLI's parser, all
# compiled with -sanitize=fuzzer,address. FUZZ_TARGET picks the target at run time (see
# run_all.sh). Usage: Tests/Fuzz/build.sh   (about 5 minutes on 2 cores)
set -eu
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../.." && pwd)
build="$here/out/build"
mkdir -p "$build"
flags="-sanitize=fuzzer,address -parse-as-library -O -wmo -num-threads 2 -enable-testing -package-name objdetect -swift-version 6 -I $build"
module() {  # module NAME SOURCES... : a static library and its .swiftmodule in $build
  name=$1; shift
  # Up to date: the library is newer than every source and every library built before it.
  if [ -f "$build/lib$name.a" ] && [ -z "$(find -L "$@" $built -newer "$build/lib$name.a" | head -1)" ]; then
    built="$built $build/lib$name.a"; return
  fi
  # The archiver adds to an existing archive: start from none, so no stale object survives.
  rm -f "$build/lib$name.a"
  # shellcheck disable=SC2086
  swiftc $flags $extra -module-name "$name" -emit-module -emit-module-path "$build/$name.swiftmodule" \
    -emit-library -static -o "$build/lib$name.a" "$@"
  built="$built $build/lib$name.a"
}
built=""
# The baseline tier's kernels on every architecture, the wider tiers on x86-64.
extra="" module KernelsBaseline "$root"/Sources/KernelsBaseline/*.swift
tiers="-lKernelsBaseline"
if [ "$(uname -m)" = x86_64 ]; then
  extra="-Xcc -march=x86-64-v3" module KernelsAVX2 "$root"/Sources/KernelsAVX2/*.swift
  extra="-Xcc -march=x86-64-v4 -Xcc -mavx512vnni" module KernelsAVX512 "$root"/Sources/KernelsAVX512/*.swift
  extra="-Xcc -march=x86-64-v4 -Xcc -mavx512vbmi" module KernelsAVX512VBMI "$root"/Sources/KernelsAVX512VBMI/*.swift
  extra="-enable-builtin-module -Xcc -march=x86-64-v4 -Xcc -mavx512vnni -Xcc -mamx-tile -Xcc -mamx-int8" \
    module KernelsAVX512AMX "$root"/Sources/KernelsAVX512AMX/*.swift
  tiers="$tiers -lKernelsAVX2 -lKernelsAVX512AMX -lKernelsAVX512 -lKernelsAVX512VBMI"
fi
# The library's layers, each after the layers it imports (Package.swift).
for layer in DetectorPlatform DetectorZlib DetectorModelFile DetectorImage DetectorInterpreter DetectorPostprocess DetectorCore; do
  extra="" module "$layer" $(find "$root/Sources/$layer" -name '*.swift' | sort)
done
layers="-lDetectorCore -lDetectorPostprocess -lDetectorInterpreter -lDetectorImage -lDetectorModelFile -lDetectorZlib -lDetectorPlatform"
# The CLI's sources without the call to exit(runMain()) that ends main.swift.
sed -e '/^exit(runMain())$/d' -e '/^Interruption.install()$/d' "$root/Sources/objdetect/main.swift" > "$build/cli_main.swift"
cli=$(find "$root/Sources/objdetect" -name '*.swift' ! -name main.swift | sort)
binary="$here/out/objdetect_fuzz"
if [ -f "$binary" ] && [ -z "$(find -L "$here"/Targets "$root/Sources/objdetect" "$build"/*.a -newer "$binary" | head -1)" ]; then
  echo "up to date: $binary"; exit 0
fi
# shellcheck disable=SC2086
swiftc $flags -module-name objdetect_fuzz -L "$build" $layers $tiers \
  "$here"/Targets/*.swift $cli "$build/cli_main.swift" -o "$binary"
echo "built $binary"
