import DetectorModelFile
import DetectorPlatform
/// Broadcasting element-wise binary kernel shared by ADD, SUB, MUL, DIV, MAXIMUM, MINIMUM,
/// FLOOR_MOD, FLOOR_DIV, SQUARED_DIFFERENCE and PRELU (float32; int32/int64 where TFLite allows).
final class BinaryElementwiseKernel: PreparedKernel {
    enum Operation { case add, sub, mul, div, maximum, minimum, floorMod, floorDiv, squaredDifference, prelu }

    let operation: Operation
    let a: Int, b: Int, out: Int
    let type: TensorDataType
    let outShape: [Int]
    /// Per output dimension, the stride into a and b (0 where broadcast).
    let aStrides: [Int], bStrides: [Int]
    let count: Int
    let bCount: Int
    let sameShape: Bool
    let activation: (min: Float, max: Float)
    let opIndex: Int, opName: String
    /// Float PRELU whose input is not broadcast and whose alpha varies only along the innermost
    /// dimension (one alpha per channel, the usual `[1, 1, C]`): the alpha count, else 0.
    let channelAlphas: Int

    init(operation: Operation, a: Int, b: Int, out: Int, type: TensorDataType, aShape: [Int], bShape: [Int],
         outShape: [Int], activation: (min: Float, max: Float), opIndex: Int, opName: String) {
        self.operation = operation
        self.a = a; self.b = b; self.out = out
        self.type = type
        self.outShape = outShape
        let rank = outShape.count
        func strides(_ s: [Int]) -> [Int] {
            let padded = [Int](repeating: 1, count: rank - s.count) + s
            let st = Shape.strides(padded)
            return (0..<rank).map { padded[$0] == 1 ? 0 : st[$0] }
        }
        aStrides = strides(aShape)
        bStrides = strides(bShape)
        count = Shape.count(outShape)
        bCount = Shape.count(bShape)
        sameShape = aShape == bShape
        self.activation = activation
        self.opIndex = opIndex; self.opName = opName
        let inner = outShape.last ?? 0
        let alphaPerChannel = bStrides.dropLast().allSatisfy { $0 == 0 } && bStrides.last == 1 && bShape.last == inner
        channelAlphas = operation == .prelu && type == .float32 && aShape == outShape && alphaPerChannel && inner > 0 ? inner : 0
    }

    /// Prepare for one of the operations; `types` are the element types the op supports.
    static func prepare(_ c: PrepareContext, _ operation: Operation, types: [TensorDataType]) throws -> any PreparedKernel {
        let x = try c.input(0, types: types)
        let y = try c.input(1, types: [x.type])
        guard let shape = Shape.broadcast(x.shape, y.shape) else {
            throw c.invalid("shapes \(x.shape) and \(y.shape) cannot be broadcast together")
        }
        guard shape.count <= 8 else { throw c.invalid("rank \(shape.count) is above the supported 8") }
        try c.setOutput(0, shape: shape, type: x.type)
        let act = operation == .prelu ? KernelSupport.activationRange(.none) : KernelSupport.activationRange(c.parameters.activation)
        return BinaryElementwiseKernel(operation: operation, a: x.index, b: y.index, out: try c.output(0).index,
                                       type: x.type, aShape: x.shape, bShape: y.shape, outShape: shape,
                                       activation: act, opIndex: c.operatorIndex, opName: c.node.opName)
    }

    func eval(_ e: EvalContext) throws {
        switch type {
        case .float32:
            let lo = activation.min, hi = activation.max
            let clamp = lo > -.greatestFiniteMagnitude || hi < .greatestFiniteMagnitude
            if sameShape, operation == .add || operation == .sub || operation == .mul {
                let pa = e.floats(a), pb = e.floats(b), po = e.floats(out)
                let op = operation == .add ? 0 : operation == .sub ? 1 : 2, binary = e.kernelTable.elementwise.binary
                let threads = count >= Self.parallelSameShapeCount ? e.threadCount : 1
                KernelSupport.parallelElements(count, threads: threads, minimumPerPart: Self.parallelSameShapeCount / 2) { range in
                    binary(op, pa + range.lowerBound, pb + range.lowerBound, po + range.lowerBound, range.count, lo, hi, clamp)
                }
                return
            }
            if channelAlphas > 0 {
                let pa = e.floats(a), alpha = e.floats(b), po = e.floats(out), inner = channelAlphas
                let threads = count >= Self.parallelSameShapeCount ? e.threadCount : 1
                KernelSupport.parallelChunks(count / inner, parts: threads) { rows in
                    Self.preluRows(pa, alpha, po, rows: rows, inner: inner)
                }
                return
            }
            switch operation {
            case .add: run(e, Float.self) { $0 + $1 }
            case .sub: run(e, Float.self) { $0 - $1 }
            case .mul: run(e, Float.self) { $0 * $1 }
            case .div: run(e, Float.self) { $0 / $1 }
            case .maximum: run(e, Float.self) { Swift.max($0, $1) }
            case .minimum: run(e, Float.self) { Swift.min($0, $1) }
            case .squaredDifference: run(e, Float.self) { ($0 - $1) * ($0 - $1) }
            case .prelu: run(e, Float.self) { $0 >= 0 ? $0 : $0 * $1 }
            case .floorMod:
                run(e, Float.self) { x, y in
                    let r = x.truncatingRemainder(dividingBy: y)
                    return (r != 0 && ((r < 0) != (y < 0))) ? r + y : r
                }
            case .floorDiv: run(e, Float.self) { ($0 / $1).rounded(.down) }
            }
            if clamp {
                let o = e.floats(out)
                KernelSupport.parallelElements(count, threads: count * 4 >= KernelSupport.parallelCopyBytes ? e.threadCount : 1) { range in
                    for i in range { o[i] = Swift.min(Swift.max(o[i], lo), hi) }
                }
            }
        case .int32: try evalInteger(e, Int32.self)
        case .int64: try evalInteger(e, Int64.self)
        default:
            throw InterpreterError.invalidOperator(index: opIndex, opName: opName, reason: "type \(type) is not supported")
        }
    }

    private func evalInteger<T: FixedWidthInteger & SignedInteger>(_ e: EvalContext, _: T.Type) throws {
        if operation == .div || operation == .floorMod || operation == .floorDiv {
            let bp = e.pointer(b, as: T.self)
            for i in 0..<bCount where bp[i] == 0 {
                throw InterpreterError.invalidOperator(index: opIndex, opName: opName, reason: "integer division by zero")
            }
        }
        switch operation {
        case .add: run(e, T.self) { $0 &+ $1 }
        case .sub: run(e, T.self) { $0 &- $1 }
        case .mul: run(e, T.self) { $0 &* $1 }
        case .div: run(e, T.self) { $1 == -1 ? 0 &- $0 : $0 / $1 }
        case .maximum: run(e, T.self) { Swift.max($0, $1) }
        case .minimum: run(e, T.self) { Swift.min($0, $1) }
        case .squaredDifference: run(e, T.self) { ($0 &- $1) &* ($0 &- $1) }
        case .prelu: run(e, T.self) { $0 >= 0 ? $0 : $0 &* $1 }
        case .floorMod:
            run(e, T.self) { x, y in
                if y == -1 { return 0 }
                let r = x % y
                return (r != 0 && ((r < 0) != (y < 0))) ? r &+ y : r
            }
        case .floorDiv:
            run(e, T.self) { x, y in
                if y == -1 { return 0 &- x }
                let q = x / y
                return (x % y != 0 && ((x < 0) != (y < 0))) ? q &- 1 : q
            }
        }
        if activation.min > -.greatestFiniteMagnitude || activation.max < .greatestFiniteMagnitude {
            let o = e.pointer(out, as: T.self)
            let lo = T(clamping: Int64(Swift.max(activation.min, -9e18)))
            let hi = T(clamping: Int64(Swift.min(activation.max, 9e18)))
            for i in 0..<count { o[i] = Swift.min(Swift.max(o[i], lo), hi) }
        }
    }

    /// Same-shape float ADD, SUB and MUL split over the threads from this many elements (64 KB
    /// an input): after a conv split over the threads, each part's inputs are mostly in its own
    /// core's cache (face_detection_short_range's residual ADDs, AMD EPYC).
    static let parallelSameShapeCount = 1 << 14

    /// PRELU over `rows` of `inner` values with one alpha per position in the row:
    /// `x ≥ 0 ? x : x · alpha` (NaN takes the product, as the element loop), 8 lanes a step.
    static func preluRows(_ x: UnsafePointer<Float>, _ alpha: UnsafePointer<Float>, _ o: UnsafeMutablePointer<Float>,
                          rows: Range<Int>, inner: Int) {
        for r in rows {
            let xr = x + r * inner, orow = o + r * inner
            var j = 0
            while j + 8 <= inner {
                let v = UnsafeRawPointer(xr + j).loadUnaligned(as: SIMD8<Float>.self)
                let a = UnsafeRawPointer(alpha + j).loadUnaligned(as: SIMD8<Float>.self)
                var y = v * a
                y.replace(with: v, where: v .>= SIMD8<Float>())
                UnsafeMutableRawPointer(orow + j).storeBytes(of: y, as: SIMD8<Float>.self)
                j += 8
            }
            while j < inner {
                let v = xr[j]
                orow[j] = v >= 0 ? v : v * alpha[j]
                j += 1
            }
        }
    }

    /// `out = f(a, b)` with broadcasting: same-shape inputs as one run; else output rows (the
    /// innermost dimension), each a contiguous loop when both inputs walk it (or one is fixed
    /// along it).
    @inline(__always)
    private func run<T>(_ e: EvalContext, _: T.Type, _ f: (T, T) -> T) {
        let pa = e.pointer(a, as: T.self), pb = e.pointer(b, as: T.self), po = e.pointer(out, as: T.self)
        if count == 0 { return }
        // One thread: `f` is a closure value, and a closure handed to the worker pool calls it
        // per element instead of inlining it (measured: PRELU and ADD 5–8× slower at 2 threads).
        if sameShape {
            for i in 0..<count { po[i] = f(pa[i], pb[i]) }
            return
        }
        let rank = outShape.count
        if rank == 0 { po[0] = f(pa[0], pb[0]); return }
        let inner = outShape[rank - 1]
        guard inner > 0 else { return }
        let sa = aStrides[rank - 1], sb = bStrides[rank - 1]
        RowWalk.forEach(0..<(count / inner), dimensions: rank - 1, sizes: outShape, stridesA: aStrides,
                        stridesB: bStrides) { row, offA, offB in
            let ra = pa + offA, rb = pb + offB, ro = po + row * inner
            if sa == 1 && sb == 1 {
                for j in 0..<inner { ro[j] = f(ra[j], rb[j]) }
            } else if sa == 1 && sb == 0 {
                let y = rb[0]
                for j in 0..<inner { ro[j] = f(ra[j], y) }
            } else if sa == 0 && sb == 1 {
                let x = ra[0]
                for j in 0..<inner { ro[j] = f(x, rb[j]) }
            } else {
                var ia = 0, ib = 0
                for j in 0..<inner { ro[j] = f(ra[ia], rb[ib]); ia += sa; ib += sb }
            }
        }
    }
}
