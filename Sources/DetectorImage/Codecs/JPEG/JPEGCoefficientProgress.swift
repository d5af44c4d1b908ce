import DetectorZlib
import DetectorPlatform
/// How precisely the scans read so far have coded each component's first ten coefficients
/// (zig-zag 0...9), kept as libjpeg keeps it (`coef_bits`, libjpeg-turbo's `prev_coef_bits`
/// and `last_good_iMCU_row`) because its interblock smoothing decides from these values.
///
/// An entry is -1 while no scan has coded the coefficient, otherwise the `Al` of the last scan
/// that did (0 = full precision).
struct JPEGCoefficientProgress {
    /// Coefficients tracked per component: the DC and the nine AC terms smoothing can estimate.
    static let tracked = 10

    /// `tracked` entries per component.
    private(set) var bits: [Int]
    /// Entries 1...9 as they were before the component's most recent scan (0 when that scan
    /// was the file's first). Rows after `lastGoodIMCURow` are smoothed with these.
    private(set) var previousBits: [Int]
    /// The last iMCU row whose MCUs the most recent scan decoded from real data (libjpeg
    /// counts it before each MCU, so the row in which the data ran out is still "good").
    var lastGoodIMCURow = 0
    /// SOS segments started, the one being decoded included.
    private(set) var scansStarted = 0

    init(componentCount: Int) {
        bits = [Int](repeating: -1, count: componentCount * Self.tracked)
        previousBits = [Int](repeating: -1, count: componentCount * Self.tracked)
    }

    /// Records the start of a scan (progressive frames only) over the components at
    /// `componentIndices`, coding zig-zag band `spectralStart...spectralEnd` down to bit `low`.
    mutating func startScan(componentIndices: [Int], spectralStart: Int, spectralEnd: Int, low: Int) {
        scansStarted += 1
        for ci in componentIndices {
            let base = ci * Self.tracked
            for k in 1..<Self.tracked {
                previousBits[base + k] = scansStarted > 1 ? bits[base + k] : 0
            }
            let last = min(spectralEnd, Self.tracked - 1)
            if spectralStart <= last {
                for k in spectralStart...last { bits[base + k] = low }
            }
        }
    }

    /// Entry `k` (0...9) of component `ci`; `previous` selects the state before its last scan
    /// (-1 for every entry when only one scan has started, as libjpeg latches it).
    func bits(component ci: Int, coefficient k: Int, previous: Bool) -> Int {
        if !previous || k == 0 { return bits[ci * Self.tracked + k] }
        return scansStarted > 1 ? previousBits[ci * Self.tracked + k] : -1
    }
}
