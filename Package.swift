// swift-tools-version:6.0
import PackageDescription

// objdetect has no package dependencies: only the Swift toolchain (Foundation, Dispatch, XCTest).
let package = Package(
    name: "objdetect",
    products: [
        .library(name: "DetectorCore", targets: ["DetectorCore"]),
        .executable(name: "objdetect", targets: ["objdetect"]),
    ],
    targets: [
        .target(name: "DetectorCore"),
        .executableTarget(name: "objdetect", dependencies: ["DetectorCore"]),
        .testTarget(name: "DetectorCoreTests", dependencies: ["DetectorCore"]),
    ],
    swiftLanguageModes: [.v6]
)
