import DetectorModelFile
import DetectorPlatform
/// Prepared rescaling of quantized ADD and SUB (TFLite's general 8-bit path): both inputs are
/// shifted left by 20 bits and scaled to `2 * max(scale1, scale2)`, summed (or subtracted),
/// then scaled to the output.
package struct QuantizedAddSubParams: Sendable, Equatable {
    package var input1ZeroPoint: Int32, input2ZeroPoint: Int32, outputZeroPoint: Int32
    package var leftShift: Int32
    package var input1: QuantizedMultiplier, input2: QuantizedMultiplier, output: QuantizedMultiplier
    package var activationMin: Int32, activationMax: Int32
    /// The three multipliers unpacked for the element loop.
    package var step1: RequantizationStep, step2: RequantizationStep, stepOut: RequantizationStep
    /// `scaled1` and `scaled2` of each of the 256 input values, indexed by the value's bit
    /// pattern: each input's rescaling depends on that input alone, so ADD and SUB cost one
    /// rescaling (`finish`) per element instead of three.
    package var rescaled1: [Int32], rescaled2: [Int32]

    package init<T: QuantizedElement>(input1 q1: QuantizationParams, input2 q2: QuantizationParams,
                                     output qo: QuantizationParams, activation: QuantizedFusedActivation, type: T.Type) {
        input1ZeroPoint = q1.zeroPoint
        input2ZeroPoint = q2.zeroPoint
        outputZeroPoint = qo.zeroPoint
        leftShift = 20
        let twiceMax = 2 * Double(max(q1.scale, q2.scale))
        input1 = QuantizedMultiplier(Double(q1.scale) / twiceMax)
        input2 = QuantizedMultiplier(Double(q2.scale) / twiceMax)
        output = QuantizedMultiplier(twiceMax / (Double(1 << 20) * Double(qo.scale)))
        (activationMin, activationMax) = quantizedActivationRange(activation, output: qo, as: T.self)
        step1 = RequantizationStep(input1)
        step2 = RequantizationStep(input2)
        stepOut = RequantizationStep(output)
        rescaled1 = []; rescaled2 = []
        let values = (0..<256).map { Int32(T(truncatingIfNeeded: UInt8($0))) }
        rescaled1 = values.map { scaled1($0) }
        rescaled2 = values.map { scaled2($0) }
    }

    @inlinable @inline(__always)
    func scaled1(_ x: Int32) -> Int32 {
        step1.apply((x &- input1ZeroPoint) &<< leftShift)
    }
    @inlinable @inline(__always)
    func scaled2(_ x: Int32) -> Int32 {
        step2.apply((x &- input2ZeroPoint) &<< leftShift)
    }
    @inlinable @inline(__always)
    package func finish(_ raw: Int32) -> Int32 {
        let v = stepOut.apply(raw) &+ outputZeroPoint
        return v < activationMin ? activationMin : (v > activationMax ? activationMax : v)
    }
    /// The clamped ADD result for one pair of raw input values.
    @inlinable @inline(__always)
    package func sum(_ a: Int32, _ b: Int32) -> Int32 { finish(scaled1(a) &+ scaled2(b)) }
    /// The clamped SUB result for one pair of raw input values.
    @inlinable @inline(__always)
    package func difference(_ a: Int32, _ b: Int32) -> Int32 { finish(scaled1(a) &- scaled2(b)) }
}

/// Quantized ADD with numpy broadcasting (TFLite reference `Add` / `BroadcastAdd6DSlow`).
package enum QuantizedAdd {
    /// ADD (or SUB) of two same-shape runs of `count` values, from the per-input tables.
    static func runContiguous<T: QuantizedElement>(_ p: QuantizedAddSubParams, _ x: UnsafePointer<T>, _ y: UnsafePointer<T>,
                                                   _ output: UnsafeMutablePointer<T>, count: Int, subtract: Bool) {
        p.rescaled1.withUnsafeBufferPointer { r1 in p.rescaled2.withUnsafeBufferPointer { r2 in
            guard r1.count == 256, r2.count == 256 else { return }
            if subtract {
                for j in 0..<count {
                    let v = p.finish(r1[Int(UInt8(truncatingIfNeeded: x[j]))] &- r2[Int(UInt8(truncatingIfNeeded: y[j]))])
                    output[j] = T(truncatingIfNeeded: v)
                }
            } else {
                for j in 0..<count {
                    let v = p.finish(r1[Int(UInt8(truncatingIfNeeded: x[j]))] &+ r2[Int(UInt8(truncatingIfNeeded: y[j]))])
                    output[j] = T(truncatingIfNeeded: v)
                }
            }
        } }
    }

    /// ADD, or with `subtract` SUB, as `run` computes it, for the interpreter: per block of up to
    /// 256 outputs the rescaled inputs are looked up and summed as `Int32`, then `requantization`
    /// (the kernel table's, built by `vectorRequantization(_:tier:)`: the same arithmetic as
    /// `finish`) turns 16 sums at a time into bytes. `run` stays the test oracle.
    package static func runBlocks<T: QuantizedElement>(_ p: QuantizedAddSubParams, _ requantization: VectorRequantization.Rows,
                                                      plan: BroadcastPlan, input1: UnsafePointer<T>, input2: UnsafePointer<T>,
                                                      output: UnsafeMutablePointer<T>, subtract: Bool = false) {
        plan.forEachRow { o, i1, i2, n, s1, s2 in
            runBlocks(p, requantization, input1 + i1, s1, input2 + i2, s2, output + o, count: n, subtract: subtract)
        }
    }

    /// `runBlocks` over one run of `count` outputs, the inputs `step1` / `step2` elements apart
    /// (0 for a broadcast input).
    package static func runBlocks<T: QuantizedElement>(_ p: QuantizedAddSubParams, _ requantization: VectorRequantization.Rows,
                                                      _ x: UnsafePointer<T>, _ step1: Int, _ y: UnsafePointer<T>, _ step2: Int,
                                                      _ output: UnsafeMutablePointer<T>, count: Int, subtract: Bool) {
        let sign: Int32 = subtract ? -1 : 1
        p.rescaled1.withUnsafeBufferPointer { r1 in p.rescaled2.withUnsafeBufferPointer { r2 in
            guard r1.count == 256, r2.count == 256 else { return }
            withUnsafeTemporaryAllocation(of: Int32.self, capacity: 256) { block in
                guard let sums = block.baseAddress else { return }
                var done = 0
                while done < count {
                    let n = min(256, count - done)
                    let a = x + done * step1, b = y + done * step2
                    for j in 0..<n {
                        sums[j] = r1[Int(UInt8(truncatingIfNeeded: a[j * step1]))]
                            &+ sign &* r2[Int(UInt8(truncatingIfNeeded: b[j * step2]))]
                    }
                    let whole = n / 16 * 16
                    if whole > 0 { requantization.apply(sums, rows: whole / 16, count: 16, output: output + done) }
                    if n > whole { requantization.apply(sums + whole, rows: 1, count: n - whole, output: output + done + whole) }
                    done += n
                }
            }
        } }
    }

    /// The requantization `runBlocks` takes: 16 channels of `p`'s output step, no bias; nil
    /// when the output multiplier shifts left (then `run`'s scalar `finish` is used).
    package static func vectorRequantization(_ p: QuantizedAddSubParams, tier: InstructionSetTier) -> VectorRequantization? {
        VectorRequantization(multipliers: Array(repeating: p.output, count: 16), bias: Array(repeating: 0, count: 16),
                             outputZeroPoint: p.outputZeroPoint, activationMin: p.activationMin,
                             activationMax: p.activationMax, tier: tier)
    }

    /// ADD, or with `subtract` SUB (the second rescaled input subtracted), from the per-input tables.
    package static func run<T: QuantizedElement>(_ p: QuantizedAddSubParams, plan: BroadcastPlan,
                                                input1: UnsafePointer<T>, input2: UnsafePointer<T>,
                                                output: UnsafeMutablePointer<T>, subtract: Bool = false) {
        p.rescaled1.withUnsafeBufferPointer { r1 in p.rescaled2.withUnsafeBufferPointer { r2 in
            guard r1.count == 256, r2.count == 256 else { return }
            plan.forEachRow { o, i1, i2, n, s1, s2 in
                for j in 0..<n {
                    let a = r1[Int(UInt8(truncatingIfNeeded: input1[i1 + j * s1]))]
                    let b = r2[Int(UInt8(truncatingIfNeeded: input2[i2 + j * s2]))]
                    output[o + j] = T(truncatingIfNeeded: p.finish(subtract ? a &- b : a &+ b))
                }
            }
        } }
    }
}
