import Foundation
@testable import DetectorCore
@testable import DetectorPlatform
@testable import DetectorZlib
@testable import DetectorModelFile
@testable import DetectorImage
@testable import DetectorInterpreter
@testable import DetectorPostprocess

/// Builds small interpreter graphs by hand for kernel tests.
struct GraphBuilder {
    var tensors: [GraphTensor] = []
    var operators: [GraphOperator] = []
    var inputs: [Int] = []
    var outputs: [Int] = []

    /// Adds an activation tensor (input, output or intermediate) and returns its index.
    mutating func tensor(_ shape: [Int], _ type: TensorDataType = .float32, name: String? = nil,
                         signature: [Int]? = nil, quantization: TensorQuantization? = nil) -> Int {
        tensors.append(GraphTensor(name: name ?? "t\(tensors.count)", type: type, shape: shape,
                                   shapeSignature: signature, quantization: quantization))
        return tensors.count - 1
    }

    mutating func input(_ shape: [Int], _ type: TensorDataType = .float32, signature: [Int]? = nil) -> Int {
        let t = tensor(shape, type, signature: signature)
        inputs.append(t)
        return t
    }

    mutating func constant(_ values: [Float], shape: [Int]) -> Int {
        constantBytes(values.withUnsafeBytes { Array($0) }, shape: shape, type: .float32)
    }

    mutating func intConstant(_ values: [Int32], shape: [Int]) -> Int {
        constantBytes(values.withUnsafeBytes { Array($0) }, shape: shape, type: .int32)
    }

    mutating func int8Constant(_ values: [Int8], shape: [Int], quantization: TensorQuantization? = nil) -> Int {
        constantBytes(values.withUnsafeBytes { Array($0) }, shape: shape, type: .int8, quantization: quantization)
    }

    mutating func constantBytes(_ bytes: [UInt8], shape: [Int], type: TensorDataType,
                                quantization: TensorQuantization? = nil) -> Int {
        tensors.append(GraphTensor(name: "c\(tensors.count)", type: type, shape: shape,
                                   quantization: quantization, constant: .owned(bytes)))
        return tensors.count - 1
    }

    /// Adds an op; its outputs get placeholder shapes (prepare sets them).
    @discardableResult
    mutating func op(_ code: BuiltinOperator, _ ins: [Int], outputs outTypes: [TensorDataType] = [.float32],
                     _ configure: (inout OperatorParameters) -> Void = { _ in }) -> [Int] {
        var p = OperatorParameters()
        configure(&p)
        let outs = outTypes.map { tensor([0], $0) }
        operators.append(GraphOperator(code: code, inputs: ins, outputs: outs, parameters: p))
        return outs
    }

    /// Adds a custom op (code CUSTOM) named `customCode`, with float outputs.
    @discardableResult
    mutating func custom(_ customCode: String, _ ins: [Int], outputs outTypes: [TensorDataType] = [.float32]) -> [Int] {
        let outs = outTypes.map { tensor([0], $0) }
        operators.append(GraphOperator(custom: customCode, inputs: ins, outputs: outs))
        return outs
    }

    func build() -> InterpreterGraph {
        InterpreterGraph(tensors: tensors, operators: operators, inputs: inputs, outputs: outputs)
    }

    /// Runs a one-op graph on float inputs (constants passed as tensors already) and returns output 0.
    func run(_ feeds: [[Float]], threads: Int = 1, tier: InstructionSetTier? = nil) throws -> (values: [Float], shape: [Int]) {
        let interpreter = try Interpreter(graph: build(), options: .init(threadCount: threads, tier: tier))
        for (i, f) in feeds.enumerated() { try interpreter.copyInput(f, at: i) }
        try interpreter.invoke()
        return (try interpreter.outputFloats(at: 0), interpreter.outputs[0].shape)
    }
}
