import DetectorModelFile
import DetectorPlatform
/// QUANTIZE: float32 → uint8/int8 (`round(x / scale) + zeroPoint`, half away from zero, in
/// `Float`, clamped), and 8-bit → 8-bit requantization (`MultiplyByQuantizedMultiplier` with
/// `double(inputScale) / double(outputScale)`).
package enum QuantizedQuantize {
    package static func fromFloat<T: QuantizedElement>(input: UnsafePointer<Float>, output: UnsafeMutablePointer<T>,
                                                      count: Int, quantization q: QuantizationParams) {
        for i in 0..<count {
            let r = (input[i] / q.scale).rounded(.toNearestOrAwayFromZero)
            let c: Float = r.isNaN ? 0 : max(-1e9, min(1e9, r))
            output[i] = T.clamped(Int32(c) &+ q.zeroPoint, T.quantizedMin, T.quantizedMax)
        }
    }

    /// The requantization multiplier from `input` to `output` quantization.
    package static func requantizeMultiplier(input: QuantizationParams, output: QuantizationParams) -> QuantizedMultiplier {
        QuantizedMultiplier(Double(input.scale) / Double(output.scale))
    }

    package static func requantize<In: QuantizedElement, Out: QuantizedElement>(
        input: UnsafePointer<In>, output: UnsafeMutablePointer<Out>, count: Int,
        inputZeroPoint: Int32, outputZeroPoint: Int32, multiplier m: QuantizedMultiplier
    ) {
        let step = RequantizationStep(m)
        for i in 0..<count {
            output[i] = Out(truncatingIfNeeded: requantized(Int32(input[i]), step, inputZeroPoint, outputZeroPoint, Out.self))
        }
    }

    /// One requantized value, clamped to `Out`'s range.
    @inline(__always)
    static func requantized<Out: QuantizedElement>(_ x: Int32, _ step: RequantizationStep, _ inputZeroPoint: Int32,
                                                   _ outputZeroPoint: Int32, _: Out.Type) -> Int32 {
        let v = step.apply(x &- inputZeroPoint) &+ outputZeroPoint
        return v < Out.quantizedMin ? Out.quantizedMin : (v > Out.quantizedMax ? Out.quantizedMax : v)
    }

    /// `requantize` tabulated for all 256 inputs: exact by construction, one load per element.
    package static func requantizeTable<In: QuantizedElement, Out: QuantizedElement>(
        _: In.Type, _: Out.Type, inputZeroPoint: Int32, outputZeroPoint: Int32, multiplier m: QuantizedMultiplier
    ) -> QuantizedLookupTable {
        let step = RequantizationStep(m)
        return QuantizedLookupTable(In.self) { requantized($0, step, inputZeroPoint, outputZeroPoint, Out.self) }
    }
}

/// Interpreter kernel for QUANTIZE (float32 → uint8/int8, or 8-bit → 8-bit requantize through
/// a 256-entry table of `requantize`'s results).
final class QuantizedQuantizeKernel: PreparedKernel {
    enum Conversion {
        /// float32 input, quantized with the output's parameters.
        case fromFloat(QuantizationParams)
        /// 8-bit input: the requantization tabulated per input value.
        case table(QuantizedLookupTable)
    }
    let conversion: Conversion
    let inputInt8: Bool, outputInt8: Bool
    let input: Int, output: Int, count: Int

    init(conversion: Conversion, inputInt8: Bool, outputInt8: Bool, input: Int, output: Int, count: Int) {
        self.conversion = conversion; self.inputInt8 = inputInt8; self.outputInt8 = outputInt8
        self.input = input; self.output = output; self.count = count
    }

    func eval(_ e: EvalContext) throws {
        if outputInt8 { evalTyped(e, Int8.self) } else { evalTyped(e, UInt8.self) }
    }

    @inline(__always)
    private func evalTyped<Out: QuantizedElement>(_ e: EvalContext, _: Out.Type) {
        let y = e.pointer(output, as: Out.self)
        switch conversion {
        case .fromFloat(let q):
            QuantizedQuantize.fromFloat(input: e.floats(input), output: y, count: count, quantization: q)
        case .table(let t):
            if inputInt8 {
                t.apply(input: e.pointer(input, as: Int8.self), output: y, count: count, threads: e.threadCount, kernel: e.kernelTable.byteTable)
            } else {
                t.apply(input: e.pointer(input, as: UInt8.self), output: y, count: count, threads: e.threadCount, kernel: e.kernelTable.byteTable)
            }
        }
    }
}

extension QuantizedQuantize {
    @Sendable package static func prepare(_ c: PrepareContext) throws -> any PreparedKernel {
        let x = try c.input(0, types: [.float32, .uint8, .int8])
        let out0 = try c.output(0)
        guard out0.type == .uint8 || out0.type == .int8 else { throw c.invalid("output type \(out0.type) is not uint8 or int8") }
        try c.setOutput(0, shape: x.shape, type: out0.type)
        let out = try c.output(0)
        let qo = try c.quantization(of: out, "output")
        let conversion: QuantizedQuantizeKernel.Conversion
        if x.type == .float32 {
            conversion = .fromFloat(qo)
        } else {
            let qi = try c.quantization(of: x, "input")
            let m = requantizeMultiplier(input: qi, output: qo)
            func table<In: QuantizedElement>(_: In.Type) -> QuantizedLookupTable {
                out.type == .int8
                    ? requantizeTable(In.self, Int8.self, inputZeroPoint: qi.zeroPoint, outputZeroPoint: qo.zeroPoint, multiplier: m)
                    : requantizeTable(In.self, UInt8.self, inputZeroPoint: qi.zeroPoint, outputZeroPoint: qo.zeroPoint, multiplier: m)
            }
            conversion = .table(x.type == .int8 ? table(Int8.self) : table(UInt8.self))
        }
        return QuantizedQuantizeKernel(conversion: conversion, inputInt8: x.type == .int8, outputInt8: out.type == .int8,
                                       input: x.index, output: out.index, count: x.elementCount)
    }
}
