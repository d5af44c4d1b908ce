import Foundation
import DetectorCore

/// `objdetect run MODEL --input FILE[:1x45x61x3] … --output-dir DIR [--threads T]`:
/// runs the model once on raw little-endian input files (in model input order; an optional
/// `:AxBxC…` suffix first resizes a dynamic input) and writes `DIR/output_<i>.bin` plus
/// `DIR/outputs.json` (`[{"index", "name", "dtype", "shape", "file"}]`).
enum RunCommand {
    static let spec = CommandSpec(
        name: "run", usage: "objdetect run MODEL --input FILE[:SHAPE]... --output-dir DIR [options]",
        summary: "run a .tflite model once on raw input tensors, write the raw outputs",
        options: [
            OptionSpec("--input", .text, value: "FILE[:1xHxWxC]",
                       help: "raw little-endian input, in model input order; :SHAPE first resizes a dynamic input", repeatable: true),
            OptionSpec("--output-dir", .text, value: "DIR", help: "where output_<i>.bin and outputs.json go (required)"),
            CommonOptions.threads,
            OptionSpec("--dump-all", .text, value: "DIR", help: "also write every tensor with data as tensor_<index>.bin"),
        ],
        notes: ["MODEL: an embedded name (\(ModelCatalog.names.joined(separator: ", "))) or a .tflite file."])

    static let subcommand = Subcommand(spec: spec, handler: run)

    static func run(_ args: ParsedOptions) throws -> Int32 {
        guard args.positional.count == 1 else { throw UsageError("run takes one MODEL, got \(args.positional.count)") }
        guard let outDir = args.string("--output-dir") else { throw UsageError("run needs --output-dir DIR") }
        let threads = args.int("--threads") ?? 1
        let inputs = try args.strings("--input").map(parseInput)
        let dumpDir = args.string("--dump-all")
        let interpreter = try Interpreter(contentsOfFile: try CommonOptions.modelPath(args.positional[0]),
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
        var entries: [OutputEntry] = []
        for (i, output) in interpreter.outputs.enumerated() {
            let file = "output_\(i).bin"
            let bytes = try interpreter.outputBytes(at: i)
            try OutputChannel.writeFile(bytes, to: dir.appendingPathComponent(file).path, what: "output \(i)")
            entries.append(OutputEntry(index: i, name: output.name, dtype: output.type.name, shape: output.shape, file: file))
        }
        if let dumpDir {
            // Debugging: every tensor with data as tensor_<index>.bin, like tensor_goldens.py --dump-all.
            let d = URL(fileURLWithPath: dumpDir)
            try FileManager.default.createDirectory(at: d, withIntermediateDirectories: true)
            for t in 0..<interpreter.graph.tensors.count {
                if let (_, bytes) = interpreter.tensorBytes(t) {
                    try OutputChannel.writeFile(bytes, to: d.appendingPathComponent("tensor_\(t).bin").path, what: "tensor \(t)")
                }
            }
        }
        let json = try JSONLines(pretty: true).encode(entries)
        try OutputChannel.writeFile(Array(json.utf8), to: dir.appendingPathComponent("outputs.json").path, what: "the output list")
        return 0
    }

    /// One output in `outputs.json`: where its bytes are and what they hold.
    struct OutputEntry: Encodable {
        let index: Int
        let name: String
        let dtype: String
        let shape: [Int]
        let file: String
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
