import DetectorModelFile
import DetectorPlatform
/// Quantized CONCATENATION. Inputs whose scale/zero point equal the output's are copied;
/// others (uint8 only, as in the runtime; int8 models must share quantization) are requantized
/// like TFLite's `ConcatenationWithScaling`: `round(q * (s_in / s_out) - zp_in * (s_in / s_out)) + zp_out`
/// in `Float`, clamped. `run(outerCount:inputs:output:outputQuantization:threads:)` is that
/// formula per element (the oracle); the kernel looks each byte up in a table of it.
package enum QuantizedConcatenation {
    /// - Parameters:
    ///   - outerCount: product of the dimensions before the axis.
    ///   - inputs: per input, its data, its `axis size * inner size` and its quantization.
    package static func run<T: QuantizedElement>(outerCount: Int,
                                                inputs: [(data: UnsafePointer<T>, copySize: Int, quantization: QuantizationParams)],
                                                output: UnsafeMutablePointer<T>, outputQuantization: QuantizationParams,
                                                threads: Int = 1) {
        let inverseOutputScale: Float = 1 / outputQuantization.scale
        let rowSize = inputs.reduce(0) { $0 + $1.copySize }
        // Output rows split over the threads when there is enough to copy.
        KernelSupport.parallelChunks(outerCount, parts: outerCount * rowSize >= KernelSupport.parallelCopyBytes ? threads : 1) { rows in
        var o = rows.lowerBound * rowSize
        for outer in rows {
            for input in inputs {
                let src = input.data + outer * input.copySize
                let q = input.quantization
                if q.zeroPoint == outputQuantization.zeroPoint && q.scale == outputQuantization.scale {
                    copyBytes(output + o, src, input.copySize * MemoryLayout<T>.stride)
                } else {
                    let scale: Float = q.scale * inverseOutputScale
                    let bias: Float = -Float(q.zeroPoint) * scale
                    for j in 0..<input.copySize {
                        let r = (Float(src[j]) * scale + bias).rounded(.toNearestOrAwayFromZero)
                        let v = Int32(clamping: Int64(r.isFinite ? max(-1e9, min(1e9, r)) : 0)) &+ outputQuantization.zeroPoint
                        output[o + j] = T.clamped(v, T.quantizedMin, T.quantizedMax)
                    }
                }
                o += input.copySize
            }
        }
        }
    }
}

extension QuantizedConcatenation {
    /// The requantization of one input as a 256-entry table (`run`'s formula evaluated once per
    /// byte value, so a lookup gives exactly its result); nil when the input is copied as is.
    static func requantizationTable<T: QuantizedElement>(_: T.Type, input q: QuantizationParams,
                                                         output: QuantizationParams) -> QuantizedLookupTable? {
        if q.zeroPoint == output.zeroPoint && q.scale == output.scale { return nil }
        let scale: Float = q.scale * (1 / output.scale)
        let bias: Float = -Float(q.zeroPoint) * scale
        return QuantizedLookupTable(T.self) { v in
            let r = (Float(v) * scale + bias).rounded(.toNearestOrAwayFromZero)
            let x = Int32(clamping: Int64(r.isFinite ? max(-1e9, min(1e9, r)) : 0)) &+ output.zeroPoint
            return x < T.quantizedMin ? T.quantizedMin : (x > T.quantizedMax ? T.quantizedMax : x)
        }
    }

    /// `run` with each requantized input's table (`requantizationTable`, nil: copied), looked
    /// up 64 bytes per step where the kernel table has byte lookups (`vpermi2b`).
    static func run<T: QuantizedElement>(outerCount: Int, inputs: [(data: UnsafePointer<T>, copySize: Int)],
                                         tables: [QuantizedLookupTable?], output: UnsafeMutablePointer<T>,
                                         threads: Int, byteTable: ByteTableKernel?) {
        let rowSize = inputs.reduce(0) { $0 + $1.copySize }
        let lookup = byteTable?.apply
        KernelSupport.parallelChunks(outerCount, parts: outerCount * rowSize >= KernelSupport.parallelCopyBytes ? threads : 1) { rows in
            var o = rows.lowerBound * rowSize
            for outer in rows {
                for (k, input) in inputs.enumerated() {
                    let src = input.data + outer * input.copySize
                    if let table = tables[k] {
                        table.table.withUnsafeBufferPointer { t in
                            guard let t = t.baseAddress else { return }
                            let from = UnsafeRawPointer(src).assumingMemoryBound(to: UInt8.self)
                            let to = UnsafeMutableRawPointer(output + o).assumingMemoryBound(to: UInt8.self)
                            if let lookup { lookup(t, from, to, input.copySize); return }
                            for j in 0..<input.copySize { to[j] = t[Int(from[j])] }
                        }
                    } else {
                        copyBytes(output + o, src, input.copySize * MemoryLayout<T>.stride)
                    }
                    o += input.copySize
                }
            }
        }
    }
}

/// Interpreter kernel for uint8/int8 CONCATENATION: inputs with the output's quantization are
/// copied, the others mapped through their requantization tables (built at prepare).
final class QuantizedConcatenationKernel: PreparedKernel {
    /// Element type chosen at prepare (int8 or uint8); eval dispatches to code specialized for it.
    let int8: Bool
    let inputs: [(index: Int, copySize: Int)]
    let tables: [QuantizedLookupTable?]
    let output: Int, outer: Int
    let byteTable: ByteTableKernel?
    init(int8: Bool, inputs: [(index: Int, copySize: Int)], tables: [QuantizedLookupTable?], output: Int, outer: Int,
         byteTable: ByteTableKernel?) {
        self.int8 = int8; self.inputs = inputs; self.tables = tables; self.output = output; self.outer = outer
        self.byteTable = byteTable
    }
    func eval(_ e: EvalContext) throws {
        if int8 { try evalTyped(e, Int8.self) } else { try evalTyped(e, UInt8.self) }
    }

    @inline(__always)
    private func evalTyped<T: QuantizedElement>(_ e: EvalContext, _: T.Type) throws {
        let list = inputs.map { (data: UnsafePointer(e.pointer($0.index, as: T.self)), copySize: $0.copySize) }
        QuantizedConcatenation.run(outerCount: outer, inputs: list, tables: tables, output: e.pointer(output, as: T.self),
                                   threads: e.threadCount, byteTable: byteTable)
    }
}

extension QuantizedConcatenation {
    @Sendable package static func prepare(_ c: PrepareContext) throws -> any PreparedKernel {
        let first = try c.input(0, types: [.uint8, .int8])
        let rank = first.rank
        guard rank > 0, let axis = Shape.axis(c.parameters.axis, rank: rank) else {
            throw c.invalid("axis \(c.parameters.axis) is out of range for rank \(rank)")
        }
        var shape = first.shape
        shape[axis] = 0
        var infos: [TensorInfo] = []
        for i in 0..<c.inputCount {
            let t = try c.input(i, types: [first.type])
            guard t.rank == rank else { throw c.invalid("input \(i) has rank \(t.rank), expected \(rank)") }
            for d in 0..<rank where d != axis && t.shape[d] != first.shape[d] {
                throw c.invalid("input \(i) shape \(t.shape) does not match \(first.shape) off the axis")
            }
            shape[axis] += t.shape[axis]
            infos.append(t)
        }
        try c.setOutput(0, shape: shape, type: first.type)
        let out = try c.output(0)
        let qo = try c.quantization(of: out, "output")
        let outer = shape[..<axis].reduce(1, *)
        let inner = shape[(axis + 1)...].reduce(1, *)
        let list = try infos.map { t in (index: t.index, copySize: t.shape[axis] * inner, quantization: try c.quantization(of: t, "input")) }
        func build<A: QuantizedElement>(_: A.Type) -> any PreparedKernel {
            QuantizedConcatenationKernel(int8: A.self == Int8.self, inputs: list.map { ($0.index, $0.copySize) },
                                         tables: list.map { requantizationTable(A.self, input: $0.quantization, output: qo) },
                                         output: out.index, outer: outer, byteTable: c.kernelTable.byteTable)
        }
        return try withQuantizedType(first.type, c) { build($0) }
    }
}
