import Foundation
import DetectorCore

/// `objdetect run MODEL --input FILE[:1x45x61x3] … --output-dir DIR [--threads T]`:
/// runs the model once on raw little-endian input files (in model input order; an optional
/// `:AxBxC…` suffix first resizes a dynamic input) and writes `DIR/output_<i>.bin` plus
/// `DIR/outputs.json` (`[{"index", "name", "dtype", "shape", "file"}]`).
enum RunCommand {
    static let usage = "usage: objdetect run MODEL --input FILE[:SHAPE] [--input FILE …] --output-dir DIR [--threads T] [--dump-all DIR]"

    static func run(_ arguments: [String]) throws -> Int32 {
        let args = try ArgumentReader(arguments, valueOptions: ["--input", "--output-dir", "--threads", "--dump-all"], flagOptions: [])
        guard args.positional.count == 1 else { throw UsageError(usage) }
        guard let outDir = args.value("--output-dir") else { throw UsageError("missing --output-dir\n" + usage) }
        let threads = try args.int("--threads") ?? 1
        guard threads >= 1, threads <= 64 else { throw UsageError("--threads must be between 1 and 64") }
        let inputs = try args.values("--input").map(parseInput)
        let dumpDir = args.value("--dump-all")
        let interpreter = try Interpreter(contentsOfFile: args.positional[0],
                                          options: .init(threadCount: threads, preserveAllTensors: dumpDir != nil))
        guard inputs.count == interpreter.inputs.count else {
            throw UsageError("the model has \(interpreter.inputs.count) inputs but \(inputs.count) --input were given")
        }
        for (i, input) in inputs.enumerated() {
            if let shape = input.shape { try interpreter.resizeInput(at: i, to: shape) }
        }
        for (i, input) in inputs.enumerated() {
            let data: Data
            do { data = try Data(contentsOf: URL(fileURLWithPath: input.path)) } catch {
                throw CommandFailure("cannot read input file '\(input.path)': \(error.localizedDescription)")
            }
            try interpreter.copyInput(data, at: i)
        }
        try interpreter.invoke()
        let dir = URL(fileURLWithPath: outDir)
        try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
        var entries: [[String: Any]] = []
        for (i, output) in interpreter.outputs.enumerated() {
            let file = "output_\(i).bin"
            let bytes = try interpreter.outputBytes(at: i)
            try Data(bytes).write(to: dir.appendingPathComponent(file))
            entries.append(["index": i, "name": output.name, "dtype": output.type.name, "shape": output.shape, "file": file])
        }
        if let dumpDir {
            // Debugging: every tensor with data as tensor_<index>.bin, like tensor_goldens.py --dump-all.
            let d = URL(fileURLWithPath: dumpDir)
            try FileManager.default.createDirectory(at: d, withIntermediateDirectories: true)
            for t in 0..<interpreter.graph.tensors.count {
                if let (_, bytes) = interpreter.tensorBytes(t) { try Data(bytes).write(to: d.appendingPathComponent("tensor_\(t).bin")) }
            }
        }
        let json = try JSONSerialization.data(withJSONObject: entries, options: [.sortedKeys, .withoutEscapingSlashes, .prettyPrinted])
        try json.write(to: dir.appendingPathComponent("outputs.json"))
        return 0
    }

    /// `FILE` or `FILE:1x45x61x3` (the suffix must be all positive integers separated by `x`).
    static func parseInput(_ value: String) throws -> (path: String, shape: [Int]?) {
        if let colon = value.lastIndex(of: ":") {
            let suffix = value[value.index(after: colon)...]
            let parts = suffix.split(separator: "x", omittingEmptySubsequences: false)
            let dims = parts.compactMap { Int($0) }
            if !parts.isEmpty, dims.count == parts.count {
                guard dims.allSatisfy({ $0 > 0 }) else { throw UsageError("input shape '\(suffix)' must be positive integers") }
                return (String(value[..<colon]), dims)
            }
        }
        return (value, nil)
    }
}
