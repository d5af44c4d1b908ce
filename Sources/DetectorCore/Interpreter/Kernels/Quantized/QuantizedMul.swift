/// Prepared parameters of quantized MUL: one multiplier `scale1 * scale2 / outputScale`
/// (computed in `Float`, as the runtime does, then widened).
public struct QuantizedMulParams: Sendable, Equatable {
    public var input1ZeroPoint: Int32, input2ZeroPoint: Int32, outputZeroPoint: Int32
    public var multiplier: QuantizedMultiplier
    public var activationMin: Int32, activationMax: Int32

    public init<T: QuantizedElement>(input1 q1: QuantizationParams, input2 q2: QuantizationParams,
                                     output qo: QuantizationParams, activation: QuantizedFusedActivation, type: T.Type) {
        input1ZeroPoint = q1.zeroPoint
        input2ZeroPoint = q2.zeroPoint
        outputZeroPoint = qo.zeroPoint
        let real: Float = q1.scale * q2.scale / qo.scale
        multiplier = QuantizedMultiplier(Double(real))
        (activationMin, activationMax) = quantizedActivationRange(activation, output: qo, as: T.self)
    }
}

/// Quantized MUL with numpy broadcasting (TFLite reference `Mul` / `BroadcastMul6DSlow`).
public enum QuantizedMul {
    /// All 65,536 results of the op for one pair of 8-bit inputs, indexed by
    /// `UInt8(bitPattern: a) << 8 | UInt8(bitPattern: b)`: built once at prepare from `run`'s
    /// arithmetic, so the table path gives identical results with one load per element.
    public static func table<T: QuantizedElement>(_ p: QuantizedMulParams, type: T.Type) -> [UInt8] {
        var a = [T](), b = [T]()
        a.reserveCapacity(65536); b.reserveCapacity(65536)
        for i in 0..<256 { for j in 0..<256 {
            a.append(T(truncatingIfNeeded: UInt8(i))); b.append(T(truncatingIfNeeded: UInt8(j)))
        } }
        var out = [T](repeating: 0, count: 65536)
        guard let plan = BroadcastPlan([65536], [65536]) else { return [] }
        a.withUnsafeBufferPointer { ap in b.withUnsafeBufferPointer { bp in out.withUnsafeMutableBufferPointer { op in
            run(p, plan: plan, input1: ap.baseAddress!, input2: bp.baseAddress!, output: op.baseAddress!)
        } } }
        return out.map { UInt8(truncatingIfNeeded: $0) }
    }

    /// Table-driven MUL (see `table`).
    public static func run<T: QuantizedElement>(table: UnsafePointer<UInt8>, plan: BroadcastPlan,
                                                input1: UnsafePointer<T>, input2: UnsafePointer<T>,
                                                output: UnsafeMutablePointer<T>) {
        plan.forEachRow { o, i1, i2, n, s1, s2 in
            for j in 0..<n {
                let ia = Int(UInt8(truncatingIfNeeded: input1[i1 + j * s1])), ib = Int(UInt8(truncatingIfNeeded: input2[i2 + j * s2]))
                output[o + j] = T(truncatingIfNeeded: table[ia << 8 | ib])
            }
        }
    }

    public static func run<T: QuantizedElement>(_ p: QuantizedMulParams, plan: BroadcastPlan,
                                                input1: UnsafePointer<T>, input2: UnsafePointer<T>,
                                                output: UnsafeMutablePointer<T>) {
        let m = RequantizationStep(p.multiplier)
        plan.forEachRow { o, i1, i2, n, s1, s2 in
            for j in 0..<n {
                let a = Int32(input1[i1 + j * s1]) &- p.input1ZeroPoint
                let b = Int32(input2[i2 + j * s2]) &- p.input2ZeroPoint
                let v = m.apply(a &* b) &+ p.outputZeroPoint
                output[o + j] = T.clamped(v, p.activationMin, p.activationMax)
            }
        }
    }
}
