// swift-tools-version:6.2
import PackageDescription

// objdetect has no package dependencies: only the Swift toolchain (Foundation, Dispatch, XCTest).
//
// On x86-64 the hot kernels are also compiled for two wider instruction-set tiers, each in a
// target of its own beneath DetectorCore (Swift sets the instruction set per module, not per
// function); the interpreter picks the best tier the CPU and OS support when it prepares a
// model (`InstructionSetTier`). Both tier targets compile the same kernel source,
// `Sources/TierKernels/` (linked into each folder), with the vector widths and multiply-add
// of their own `Tier.swift`. The baseline tier (SSE2, NEON on arm64) is DetectorCore's own
// kernels, built with no flags.
#if arch(x86_64)
let tierTargets: [Target] = [
    .target(name: "KernelsAVX2", swiftSettings: [.unsafeFlags(["-Xcc", "-march=x86-64-v3"])]),
    .target(name: "KernelsAVX512",
            swiftSettings: [.unsafeFlags(["-Xcc", "-march=x86-64-v4", "-Xcc", "-mavx512vnni"])]),
    // Byte table lookups (`vpermi2b`): VBMI is not in x86-64-v4, so it is checked on its own.
    .target(name: "KernelsAVX512VBMI",
            swiftSettings: [.unsafeFlags(["-Xcc", "-march=x86-64-v4", "-Xcc", "-mavx512vbmi"])]),
]
#else
let tierTargets: [Target] = []
#endif

let package = Package(
    name: "objdetect",
    products: [
        .library(name: "DetectorCore", targets: ["DetectorCore"]),
        .executable(name: "objdetect", targets: ["objdetect"]),
    ],
    targets: tierTargets + [
        // `Sources/DetectorCore/Models` links to the top-level `Models/` (the embedded detectors,
        // with their licence and provenance), copied as the target's resource bundle.
        .target(name: "DetectorCore", dependencies: tierTargets.map { .target(name: $0.name) },
                resources: [.copy("Models")]),
        .executableTarget(name: "objdetect", dependencies: ["DetectorCore"]),
        .testTarget(name: "DetectorCoreTests", dependencies: ["DetectorCore"], exclude: ["Tracking/README.md"]),
    ],
    swiftLanguageModes: [.v6]
)
