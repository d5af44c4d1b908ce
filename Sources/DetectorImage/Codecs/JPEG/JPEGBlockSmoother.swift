import DetectorZlib
import DetectorPlatform
/// libjpeg's interblock smoothing of progressive images (on by default, so what Pillow shows
/// for a partially downloaded progressive JPEG): when the scans read have not coded a
/// component's first nine AC coefficients (zig-zag 1...9) to full precision, each block's
/// missing ones are estimated from the DC values of the 5x5 blocks around it before the IDCT.
///
/// The rules are libjpeg-turbo 2.1+'s (jdcoefct.c, `smoothing_ok` and
/// `decompress_smooth_data`):
/// - it runs only if every component has a quantization table whose DC and nine first AC
///   entries are nonzero and at least part of its DC, and some component misses AC bits;
/// - an estimate replaces a coefficient only while it is still 0 and its bits are not all
///   known; with `Al` > 0 known bits it is clamped below `2^Al`;
/// - a component that has only DC data ("DC interpolation") gets all nine AC terms from a
///   Gaussian-like kernel and its DC replaced by a smoothed DC; otherwise only zig-zag 1...5
///   are estimated, with the wider kernels of T.81 K.8;
/// - neighbours outside the component repeat the edge block; the rows above and below are
///   chosen as libjpeg chooses them (its index arithmetic in the last iMCU row included);
/// - iMCU rows after the last one the final scan decoded from real data use the coefficient
///   state from before that scan.
///
/// ```swift
/// if let smoother = JPEGBlockSmoother(frame: frame, progress: progress) { /* smooth, then IDCT */ }
/// ```
struct JPEGBlockSmoother {
    /// One coefficient to estimate: natural position, known low bit count (`Al`, -1 = none)
    /// and the 25 DC weights (rows -2...+2 outer, columns -2...+2 inner).
    struct Estimate {
        var position: Int
        var knownBits: Int
        var weights: [Int]
    }

    /// What to do with every block of a component in one coefficient state.
    struct Plan {
        var estimates: [Estimate] = []
        var interpolatesDC = false
        var isEmpty: Bool { estimates.isEmpty && !interpolatesDC }
    }

    /// Per component: the plan for the coefficient state after all scans, and for the state
    /// before the last scan (rows after `lastGoodIMCURow`).
    let current: [Plan]
    let previous: [Plan]
    let lastGoodIMCURow: Int

    /// Smoothing for this frame, or nil when libjpeg would not smooth it.
    init?(frame: JPEGFrame, progress: JPEGCoefficientProgress) {
        guard frame.progressive else { return nil }
        var useful = false
        for (ci, component) in frame.components.enumerated() {
            guard let quant = component.quant, quant[0] != 0,
                  Self.acPositions.allSatisfy({ quant[$0] != 0 }),
                  progress.bits(component: ci, coefficient: 0, previous: false) >= 0 else { return nil }
            for k in 1..<JPEGCoefficientProgress.tracked
            where progress.bits(component: ci, coefficient: k, previous: false) != 0 {
                useful = true
            }
        }
        guard useful else { return nil }
        func plan(_ ci: Int, previous: Bool) -> Plan {
            let bits = (1..<JPEGCoefficientProgress.tracked).map {
                progress.bits(component: ci, coefficient: $0, previous: previous)
            }
            var plan = Plan()
            plan.interpolatesDC = bits.allSatisfy { $0 == -1 }
            let count = plan.interpolatesDC ? 9 : 5
            for z in 1...count where bits[z - 1] != 0 {
                plan.estimates.append(Estimate(position: Self.acPositions[z - 1], knownBits: bits[z - 1],
                                               weights: plan.interpolatesDC ? Self.interpolatingWeights[z - 1]
                                                                            : Self.plainWeights[z - 1]))
            }
            return plan
        }
        current = frame.components.indices.map { plan($0, previous: false) }
        previous = frame.components.indices.map { plan($0, previous: true) }
        lastGoodIMCURow = progress.lastGoodIMCURow
    }

    /// The plan for block row `row` of component `ci` (vertical sampling factor `v`).
    func plan(component ci: Int, blockRow row: Int, v: Int) -> Plan {
        row / v > lastGoodIMCURow ? previous[ci] : current[ci]
    }

    /// The block rows libjpeg reads as the two rows above, the row itself and the two rows
    /// below block row `row` of a component with vertical factor `v` and `blockRows` real
    /// block rows, in a frame of `iMCURows` iMCU rows. A missing row repeats the nearer one.
    /// In the last iMCU row libjpeg numbers rows with that row's (smaller) block count, which
    /// can take a row two above as missing; that is kept.
    /// Rows are clamped to `0..<storedRows` (libjpeg's choice always lies inside).
    static func neighbourRows(row: Int, v: Int, iMCURows: Int, blockRows: Int, storedRows: Int,
                              into rows: UnsafeMutablePointer<Int>) {
        let iMCU = row / v, inRow = row % v
        var rowsHere = v
        if iMCU == iMCURows - 1, blockRows % v != 0 { rowsHere = blockRows % v }
        let index = iMCU * rowsHere + inRow, count = rowsHere * iMCURows
        let above = index > 0 ? row - 1 : row
        let twoAbove = index > 1 ? row - 2 : above
        let below = index < count - 1 ? row + 1 : row
        let twoBelow = index < count - 2 ? row + 2 : below
        for (i, r) in [twoAbove, above, row, below, twoBelow].enumerated() { rows[i] = min(max(r, 0), storedRows - 1) }
    }

    /// Copies block (`column`, `rows[2]`) of `plane` to `workspace` (64 values, natural order)
    /// with `plan` applied. `rows` holds the five rows from `neighbourRows`, each inside the
    /// plane; `dcs` is scratch for 25 values.
    @inline(__always)
    static func smooth(_ plane: JPEGCoefficientPlane, rows: UnsafePointer<Int>, column: Int, blocksPerRow: Int,
                       plan: Plan, quant: UnsafePointer<Int32>, dcs: UnsafeMutablePointer<Int>,
                       workspace: UnsafeMutablePointer<Int16>) {
        for r in 0..<5 {
            for d in 0..<5 {
                let c = min(max(column &+ d &- 2, 0), blocksPerRow &- 1)
                dcs[r &* 5 &+ d] = Int(plane.block(column: c, row: rows[r])[0])
            }
        }
        workspace.update(from: plane.block(column: column, row: rows[2]), count: 64)
        let q00 = Int(quant[0])
        func weighted(_ weights: [Int]) -> Int {
            var sum = 0
            for i in 0..<25 where weights[i] != 0 { sum &+= weights[i] &* dcs[i] }
            return q00 &* sum
        }
        for e in plan.estimates where workspace[e.position] == 0 {
            workspace[e.position] = estimate(weighted(e.weights), quantizer: Int(quant[e.position]), knownBits: e.knownBits)
        }
        if plan.interpolatesDC {
            workspace[0] = estimate(weighted(Self.dcWeights), quantizer: q00, knownBits: 0)
        }
    }

    /// `round(num / (quantizer * 256))` with the sign handled apart, clamped below `2^knownBits`
    /// when bits are known, narrowed as libjpeg narrows it (to `int`, then to a coefficient).
    @inline(__always)
    static func estimate(_ num: Int, quantizer: Int, knownBits: Int) -> Int16 {
        let half = quantizer &<< 7, scale = quantizer &<< 8
        var value = Int32(truncatingIfNeeded: ((num >= 0 ? num : 0 &- num) &+ half) / scale)
        if knownBits > 0 && value >= Int32(1) << knownBits { value = (Int32(1) << knownBits) &- 1 }
        return Int16(truncatingIfNeeded: num >= 0 ? value : 0 &- value)
    }

    // MARK: kernels

    /// Natural positions of zig-zag coefficients 1...9.
    static let acPositions = [1, 8, 16, 9, 2, 3, 10, 17, 24]

    private static func transposed(_ w: [Int]) -> [Int] {
        (0..<25).map { w[($0 % 5) * 5 + $0 / 5] }
    }

    private static let plain01 = [0, 0, 0, 0, 0, 0, 0, 0, 0, 0, -7, 50, 0, -50, 7, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0]
    private static let plain20 = [0, 0, -1, 0, 0, 0, 0, 13, 0, 0, 0, 0, -24, 0, 0, 0, 0, 13, 0, 0, 0, 0, -1, 0, 0]
    private static let plain11 = [0, -1, 0, 1, 0, -1, 10, 0, -10, 1, 0, 0, 0, 0, 0, 1, -10, 0, 10, -1, 0, 1, 0, -1, 0]
    /// Zig-zag 1...5 (Q01, Q10, Q20, Q11, Q02) when some AC data exists.
    static let plainWeights = [plain01, transposed(plain01), plain20, plain11, transposed(plain20)]

    private static let dc01 = [-1, -1, 0, 1, 1, -3, 13, 0, -13, 3, -3, 38, 0, -38, 3, -3, 13, 0, -13, 3, -1, -1, 0, 1, 1]
    private static let dc20 = [0, 0, 1, 0, 0, 0, 2, 7, 2, 0, 0, -5, -14, -5, 0, 0, 2, 7, 2, 0, 0, 0, 1, 0, 0]
    private static let dc11 = [-1, 0, 0, 0, 1, 0, 9, 0, -9, 0, 0, 0, 0, 0, 0, 0, -9, 0, 9, 0, 1, 0, 0, 0, -1]
    private static let dc03 = [0, 0, 0, 0, 0, 0, 1, 0, -1, 0, 0, 2, 0, -2, 0, 0, 1, 0, -1, 0, 0, 0, 0, 0, 0]
    private static let dc12 = [0, 0, 0, 0, 0, 0, 1, -3, 1, 0, 0, 0, 0, 0, 0, 0, -1, 3, -1, 0, 0, 0, 0, 0, 0]
    /// Zig-zag 1...9 (Q01, Q10, Q20, Q11, Q02, Q03, Q12, Q21, Q30) when only DC data exists.
    static let interpolatingWeights = [dc01, transposed(dc01), dc20, dc11, transposed(dc20),
                                       dc03, dc12, transposed(dc12), transposed(dc03)]
    /// The smoothed DC of DC interpolation (weights sum to 256).
    static let dcWeights = [-2, -6, -8, -6, -2, -6, 6, 42, 6, -6, -8, 42, 152, 42, -8, -6, 6, 42, 6, -6,
                            -2, -6, -8, -6, -2]
}
