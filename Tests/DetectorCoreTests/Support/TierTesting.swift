import XCTest
@testable import DetectorCore
@testable import DetectorPlatform
@testable import DetectorZlib
@testable import DetectorModelFile
@testable import DetectorImage
@testable import DetectorInterpreter
@testable import DetectorPostprocess

/// The instruction-set tiers a fast-path test runs at: every tier this CPU supports (each
/// kernel tier is checked against the same reference loops), whatever `OBJDETECT_ISA` says.
enum TierTesting {
    static let tiers = InstructionSetTier.allCases.filter { $0 <= InstructionSetTier.supported }

    /// Float fast-path results against the reference loops: bit-identical where the kernels
    /// keep the reference summation (`exact`), else within `relative` of each value (at
    /// least of 1), the room fused multiply-adds and regrouped sums take.
    static func assertMatches(_ fast: [Float], _ expected: [Float], exact: Bool, relative: Float = 1e-5,
                              _ message: @autoclosure () -> String = "", file: StaticString = #filePath, line: UInt = #line) {
        if exact {
            XCTAssertEqual(fast, expected, message(), file: file, line: line)
            return
        }
        XCTAssertEqual(fast.count, expected.count, message(), file: file, line: line)
        var worst: (index: Int, error: Float) = (-1, 0)
        for (i, (u, v)) in zip(fast, expected).enumerated() {
            let error = abs(u - v) / max(1, abs(v))
            if !(error <= worst.error) { worst = (i, error.isNaN ? .infinity : error) }
        }
        if worst.error > relative {
            XCTFail("\(message()): value \(worst.index) is \(fast[worst.index]), reference \(expected[worst.index]) " +
                    "(relative error \(worst.error) > \(relative))", file: file, line: line)
        }
    }
}
