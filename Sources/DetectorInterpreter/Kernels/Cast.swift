import DetectorModelFile
import DetectorPlatform
/// `CAST` between float32, float16, int64, int32, int16, int8, uint8 and bool
/// (float → integer truncates toward zero and saturates, like a C++ static_cast on range).
final class CastKernel: PreparedKernel {
    let input: Int, output: Int, count: Int
    let from: TensorDataType, to: TensorDataType
    static let types: [TensorDataType] = [.float32, .float16, .int64, .int32, .int16, .int8, .uint8, .bool, .uint16, .uint32, .float64]

    init(input: Int, output: Int, count: Int, from: TensorDataType, to: TensorDataType) {
        self.input = input; self.output = output; self.count = count; self.from = from; self.to = to
    }

    @Sendable static func prepare(_ c: PrepareContext) throws -> any PreparedKernel {
        let x = try c.input(0, types: types)
        let to = try c.output(0).type
        guard types.contains(to) else { throw c.invalid("cannot cast to \(to)") }
        try c.setOutput(0, shape: x.shape, type: to)
        return CastKernel(input: x.index, output: try c.output(0).index, count: x.elementCount, from: x.type, to: to)
    }

    private func load(_ p: UnsafeMutableRawPointer, _ i: Int) -> Double {
        switch from {
        case .float32: return Double(p.assumingMemoryBound(to: Float.self)[i])
        case .float16: return Double(KernelSupport.halfToFloat(p.assumingMemoryBound(to: UInt16.self)[i]))
        case .float64: return p.assumingMemoryBound(to: Double.self)[i]
        case .int64: return Double(p.assumingMemoryBound(to: Int64.self)[i])
        case .int32: return Double(p.assumingMemoryBound(to: Int32.self)[i])
        case .uint32: return Double(p.assumingMemoryBound(to: UInt32.self)[i])
        case .int16: return Double(p.assumingMemoryBound(to: Int16.self)[i])
        case .uint16: return Double(p.assumingMemoryBound(to: UInt16.self)[i])
        case .int8: return Double(p.assumingMemoryBound(to: Int8.self)[i])
        case .uint8, .bool: return Double(p.assumingMemoryBound(to: UInt8.self)[i])
        default: return 0
        }
    }

    private static func integer<T: FixedWidthInteger>(_ v: Double, _: T.Type) -> T {
        if v.isNaN { return 0 }
        let t = v.rounded(.towardZero)
        if t <= Double(T.min) { return T.min }
        if t >= Double(T.max) { return T.max }
        return T(t)
    }

    func eval(_ e: EvalContext) throws {
        let src = e.raw(input), dst = e.raw(output)
        for i in 0..<count {
            let v = load(src, i)
            switch to {
            case .float32: dst.assumingMemoryBound(to: Float.self)[i] = Float(v)
            case .float16: dst.assumingMemoryBound(to: UInt16.self)[i] = Float16(Float(v)).bitPattern
            case .float64: dst.assumingMemoryBound(to: Double.self)[i] = v
            case .int64: dst.assumingMemoryBound(to: Int64.self)[i] = Self.integer(v, Int64.self)
            case .int32: dst.assumingMemoryBound(to: Int32.self)[i] = Self.integer(v, Int32.self)
            case .uint32: dst.assumingMemoryBound(to: UInt32.self)[i] = Self.integer(v, UInt32.self)
            case .int16: dst.assumingMemoryBound(to: Int16.self)[i] = Self.integer(v, Int16.self)
            case .uint16: dst.assumingMemoryBound(to: UInt16.self)[i] = Self.integer(v, UInt16.self)
            case .int8: dst.assumingMemoryBound(to: Int8.self)[i] = Self.integer(v, Int8.self)
            case .uint8: dst.assumingMemoryBound(to: UInt8.self)[i] = Self.integer(v, UInt8.self)
            case .bool: dst.assumingMemoryBound(to: UInt8.self)[i] = v != 0 ? 1 : 0
            default: break
            }
        }
    }
}
