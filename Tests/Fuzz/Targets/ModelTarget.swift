// Fuzz target of model prepare + invoke: mutated real models (seeds from ../shared/models),
// inputs filled deterministically, small resource caps so each run stays short.
import Foundation
@testable import DetectorCore
@testable import DetectorPlatform
@testable import DetectorZlib
@testable import DetectorModelFile
@testable import DetectorImage
@testable import DetectorInterpreter
@testable import DetectorPostprocess

/// Caps of the fuzzed interpreter: far below the defaults, so a mutated shape that asks for
/// more is rejected at prepare instead of making a run slow.
let fuzzInterpreterOptions = Interpreter.Options(threadCount: 1, maxArenaBytes: 32 << 20, maxMultiplyAccumulates: 10_000_000)

func fuzzModelInvoke(_ bytes: [UInt8]) {
    guard let interpreter = try? Interpreter(modelData: Data(bytes), options: fuzzInterpreterOptions) else { return }
    for (position, input) in interpreter.inputs.enumerated() {
        try? interpreter.copyInput(deterministicBytes(for: input), at: position)
    }
    do {
        try interpreter.invoke()
        for position in interpreter.outputs.indices { _ = try interpreter.outputBytes(at: position) }
    } catch {
        _ = String(describing: error)
    }
}

/// The same input every run: floats in [-1, 1), other types a byte ramp.
func deterministicBytes(for input: TensorDescription) -> [UInt8] {
    let count = input.byteCount
    guard count <= 32 << 20 else { return [] }
    if input.type == .float32 {
        let floats = (0..<count / 4).map { Float($0 % 64) / 32 - 1 }
        return floats.withUnsafeBytes { Array($0) }
    }
    return (0..<count).map { UInt8(truncatingIfNeeded: $0 &* 37) }
}
