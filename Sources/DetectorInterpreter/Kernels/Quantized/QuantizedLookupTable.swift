import DetectorModelFile
import DetectorPlatform
import Foundation

/// A 256-entry table mapping every 8-bit input to its output, built as TFLite's `LUTPopulate`:
/// dequantize in `Float`, apply the function in `Float`, `round(y / outputScale)` (half away
/// from zero) + zero point, clamp; NaN/inf map to the type's minimum.
/// Used by the reference LOGISTIC and TANH kernels for uint8/int8, and (tabulating its integer
/// arithmetic) by the 8-bit → 8-bit QUANTIZE.
package struct QuantizedLookupTable: Sendable, Equatable {
    /// Indexed by the input's bit pattern (`UInt8(truncatingIfNeeded:)`).
    package var table: [UInt8]

    /// Tabulates `result` (an output value as `Int32`, stored by its low 8 bits) for every `In` value.
    package init<In: QuantizedElement>(_: In.Type, tabulating result: (Int32) -> Int32) {
        table = (0..<256).map { UInt8(truncatingIfNeeded: result(Int32(In(truncatingIfNeeded: UInt8($0))))) }
    }

    package init<T: QuantizedElement>(input: QuantizationParams, output: QuantizationParams, type: T.Type,
                                     _ transform: (Float) -> Float) {
        var t = [UInt8](repeating: 0, count: 256)
        let inverseScale: Float = 1 / output.scale
        for v in T.quantizedMin...T.quantizedMax {
            let x: Float = input.scale * Float(v - input.zeroPoint)
            let y = transform(x)
            var q = T.quantizedMin
            let scaled = (y * inverseScale).rounded(.toNearestOrAwayFromZero)
            if scaled.isFinite {
                let s = Swift.max(-1e9, Swift.min(1e9, scaled))
                q = Int32(s) &+ output.zeroPoint
                q = Swift.min(T.quantizedMax, Swift.max(T.quantizedMin, q))
            } else if !y.isNaN, scaled > 0 {
                q = T.quantizedMax
            }
            t[Int(UInt8(truncatingIfNeeded: v))] = UInt8(truncatingIfNeeded: q)
        }
        table = t
    }

    /// The LOGISTIC table (`1 / (1 + exp(-x))` in `Float`).
    package static func logistic<T: QuantizedElement>(input: QuantizationParams, output: QuantizationParams, type: T.Type) -> Self {
        Self(input: input, output: output, type: type) { 1 / (1 + expf(-$0)) }
    }

    /// The TANH table (`tanh(x)` in `Float`).
    package static func tanh<T: QuantizedElement>(input: QuantizationParams, output: QuantizationParams, type: T.Type) -> Self {
        Self(input: input, output: output, type: type) { tanhf($0) }
    }

    /// Maps `count` values through the table, over `threads` threads when there are many;
    /// 64 values per step at the AVX-512 tier of a CPU with VBMI (`TierByteTable`).
    package func apply<In: QuantizedElement, Out: QuantizedElement>(input: UnsafePointer<In>, output: UnsafeMutablePointer<Out>,
                                                                   count: Int, threads: Int = 1,
                                                                   tier: InstructionSetTier = .baseline) {
        apply(input: input, output: output, count: count, threads: threads, kernel: KernelTable.for(tier).byteTable)
    }

    /// `apply` with the kernel table's byte-table entry `kernel` (nil: one lookup per byte).
    package func apply<In: QuantizedElement, Out: QuantizedElement>(input: UnsafePointer<In>, output: UnsafeMutablePointer<Out>,
                                                                   count: Int, threads: Int = 1, kernel: ByteTableKernel?) {
        let vectorLookup = kernel?.apply
        table.withUnsafeBufferPointer { t in
            guard let t = t.baseAddress, table.count == 256 else { return }
            let bytesIn = UnsafeRawPointer(input).assumingMemoryBound(to: UInt8.self)
            let bytesOut = UnsafeMutableRawPointer(output).assumingMemoryBound(to: UInt8.self)
            KernelSupport.parallelElements(count, threads: count >= KernelSupport.parallelCopyBytes ? threads : 1) { range in
                if let vectorLookup {
                    vectorLookup(t, bytesIn + range.lowerBound, bytesOut + range.lowerBound, range.count)
                    return
                }
                for i in range { bytesOut[i] = t[Int(bytesIn[i])] }
            }
        }
    }
}
