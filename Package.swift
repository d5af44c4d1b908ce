// swift-tools-version:6.2
import PackageDescription

// objdetect has no package dependencies: only the Swift toolchain (Foundation, Dispatch, XCTest).
//
// The library is a stack of layers, each a target that depends only on the layers beneath it
// (ARCHITECTURE.md draws the graph). Users import only `DetectorCore`, the top layer (the tasks),
// which re-exports the others (`Exports.swift`). A declaration one layer needs from another is
// `package`; what users see is `public`.
//
// The hot kernels are written once, in `Sources/TierKernels/`, and compiled once per CPU
// instruction-set tier, each tier a target of its own (Swift sets the instruction set per
// module, not per function) that links those files into its folder beside its own `Tier.swift`
// (the vector primitives, register tiles and multiply-add of that instruction set).
// `KernelsBaseline` is built on every architecture with no flags (SSE2 on x86-64, NEON on
// arm64); on x86-64 two wider tiers are built too. The interpreter and the JPEG decoder pick
// the table of the best tier the CPU and OS support (`InstructionSetTier`, in
// `DetectorPlatform`; `KernelTable`, `JPEGKernels`). A new tier is one target here, its
// `Tier.swift` and one kernel table (ARCHITECTURE.md, "Adding a tier").
#if arch(x86_64)
let wideTierTargets: [Target] = [
    .target(name: "KernelsAVX2", swiftSettings: [.unsafeFlags(["-Xcc", "-march=x86-64-v3"])]),
    .target(name: "KernelsAVX512",
            swiftSettings: [.unsafeFlags(["-Xcc", "-march=x86-64-v4", "-Xcc", "-mavx512vnni"])]),
    // Byte table lookups (`vpermi2b`): VBMI is not in x86-64-v4, so it is checked on its own.
    .target(name: "KernelsAVX512VBMI",
            swiftSettings: [.unsafeFlags(["-Xcc", "-march=x86-64-v4", "-Xcc", "-mavx512vbmi"])]),
    // The byte GEMM on AMX tiles (`tdpbusd`), checked on its own like VBMI; the tile
    // instructions are LLVM intrinsics reached through the Builtin module. Under
    // `--sanitize=thread` the sanitizer would turn the calls of the by-name intrinsics into
    // `invoke`s for its unwinding cleanup, which LLVM rejects for intrinsics: it is told not to.
    .target(name: "KernelsAVX512AMX", dependencies: ["KernelsAVX512"],
            swiftSettings: [.unsafeFlags(["-enable-builtin-module", "-Xcc", "-march=x86-64-v4", "-Xcc", "-mavx512vnni",
                                          "-Xcc", "-mamx-tile", "-Xcc", "-mamx-int8",
                                          "-Xllvm", "-tsan-handle-cxx-exceptions=false"])]),
]
#else
let wideTierTargets: [Target] = []
#endif
let tierTargets: [Target] = [.target(name: "KernelsBaseline")] + wideTierTargets
let tiers: [Target.Dependency] = tierTargets.map { .target(name: $0.name) }

let package = Package(
    name: "objdetect",
    products: [
        .library(name: "DetectorCore", targets: ["DetectorCore"]),
        .executable(name: "objdetect", targets: ["objdetect"]),
    ],
    targets: tierTargets + [
        // Leaves: what the CPU and OS offer (the instruction-set tier, file path names); zlib (inflate, deflate, CRC-32, Adler-32).
        .target(name: "DetectorPlatform"),
        .target(name: "DetectorZlib"),
        // The model file: bounds-checked FlatBuffers/FlexBuffers, the TFLite schema, metadata, the appended ZIP.
        .target(name: "DetectorModelFile", dependencies: ["DetectorZlib"]),
        // Images: buffers, orientation, resize, image → tensor, annotation, and the codecs (PNG, JPEG, PPM, EXIF, streams).
        .target(name: "DetectorImage", dependencies: ["DetectorZlib", "DetectorPlatform"] + tiers),
        // The interpreter: graph, prepare, arena, kernels (float, hybrid, bit-exact quantized).
        .target(name: "DetectorInterpreter", dependencies: ["DetectorModelFile", "DetectorPlatform"] + tiers),
        // Post-processing on plain values: box decoders, NMS, filters, the tracker and its evaluation.
        .target(name: "DetectorPostprocess", dependencies: ["DetectorModelFile", "DetectorImage"]),
        // The tasks users call (ObjectDetector, ImageLabeler) over the layers above, which it re-exports.
        // `Sources/DetectorCore/Models` links to the top-level `Models/` (the embedded detectors,
        // with their licence and provenance), copied as the target's resource bundle.
        .target(name: "DetectorCore",
                dependencies: ["DetectorPostprocess", "DetectorInterpreter", "DetectorImage",
                               "DetectorModelFile", "DetectorZlib", "DetectorPlatform"],
                resources: [.copy("Models")]),
        .executableTarget(name: "objdetect", dependencies: ["DetectorCore"]),
        .testTarget(name: "DetectorCoreTests", dependencies: ["DetectorCore", "objdetect"], exclude: ["DetectorPostprocess/Tracking/README.md"]),
    ],
    swiftLanguageModes: [.v6]
)
