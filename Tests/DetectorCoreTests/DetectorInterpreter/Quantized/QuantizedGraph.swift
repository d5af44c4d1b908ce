import Foundation
@testable import DetectorCore
@testable import DetectorPlatform
@testable import DetectorZlib
@testable import DetectorModelFile
@testable import DetectorImage
@testable import DetectorInterpreter
@testable import DetectorPostprocess

/// Builds one-op quantized graphs by hand (every tensor may carry quantization).
struct QuantizedGraph {
    var tensors: [GraphTensor] = []
    var operators: [GraphOperator] = []
    var inputs: [Int] = []
    var outputs: [Int] = []

    static func q(_ scale: Float, _ zp: Int) -> TensorQuantization {
        TensorQuantization(scales: [scale], zeroPoints: [Int64(zp)])
    }

    mutating func input(_ shape: [Int], _ type: TensorDataType, _ q: TensorQuantization?) -> Int {
        tensors.append(GraphTensor(name: "in\(tensors.count)", type: type, shape: shape, quantization: q))
        inputs.append(tensors.count - 1)
        return tensors.count - 1
    }

    mutating func output(_ type: TensorDataType, _ q: TensorQuantization?) -> Int {
        tensors.append(GraphTensor(name: "out\(tensors.count)", type: type, shape: [0], quantization: q))
        outputs.append(tensors.count - 1)
        return tensors.count - 1
    }

    mutating func constant<E>(_ values: [E], shape: [Int], _ type: TensorDataType, _ q: TensorQuantization? = nil) -> Int {
        let bytes = values.withUnsafeBytes { Array($0) }
        tensors.append(GraphTensor(name: "c\(tensors.count)", type: type, shape: shape, quantization: q, constant: .owned(bytes)))
        return tensors.count - 1
    }

    mutating func op(_ code: BuiltinOperator, _ ins: [Int], _ outs: [Int], _ configure: (inout OperatorParameters) -> Void = { _ in }) {
        var p = OperatorParameters()
        configure(&p)
        operators.append(GraphOperator(code: code, inputs: ins, outputs: outs, parameters: p))
    }

    /// Runs with raw byte feeds; returns output 0's bytes and shape.
    func run(_ feeds: [[UInt8]], threads: Int = 1) throws -> (bytes: [UInt8], shape: [Int]) {
        let interpreter = try Interpreter(graph: InterpreterGraph(tensors: tensors, operators: operators, inputs: inputs, outputs: outputs),
                                          options: .init(threadCount: threads))
        for (i, f) in feeds.enumerated() { try interpreter.copyInput(f, at: i) }
        try interpreter.invoke()
        return (try interpreter.outputBytes(at: 0), interpreter.outputs[0].shape)
    }
}

func int8Bytes(_ v: [Int8]) -> [UInt8] { v.map { UInt8(bitPattern: $0) } }
func asInt8(_ v: [UInt8]) -> [Int8] { v.map { Int8(bitPattern: $0) } }

/// The quantized tests' generator is the shared SplitMix64, with a closed-range helper.
typealias TestRandom = SplitMix64

extension SplitMix64 {
    mutating func int(_ range: ClosedRange<Int>) -> Int {
        range.lowerBound + Int(next() % UInt64(range.upperBound - range.lowerBound + 1))
    }
}
