import Foundation
import DetectorCore

/// `objdetect inspect MODEL [--json]`: what a .tflite model contains.
@MainActor let inspectCommand = Subcommand(
    name: "inspect",
    summary: "describe a .tflite model (tensors, ops, metadata, labels, family)",
    run: runInspect)

func runInspect(_ arguments: [String]) throws -> Int32 {
    let args = try ArgumentReader(arguments, valueOptions: [], flagOptions: ["--json"])
    guard args.positional.count == 1 else { throw UsageError("inspect needs exactly one MODEL path") }
    let path = args.positional[0]
    let model = try TFLiteModel(contentsOfFile: path)
    let report = InspectReport(model: model, path: path)
    if args.flag("--json") {
        try printJSON(report.json())
    } else {
        print(report.text())
    }
    return 0
}

/// Builds both renderings of `inspect` from one model.
struct InspectReport {
    let model: TFLiteModel
    let path: String

    func quantizationJSON(_ t: TFLiteTensor) -> [String: Any] {
        // The runtime only reports affine quantization (scales present).
        if let q = t.quantization, q.isAffine {
            return ["scales": q.scales.map { Double($0) }, "zero_points": q.zeroPoints.map { Int($0) },
                    "quantized_dimension": q.quantizedDimension]
        }
        return ["scales": [Double](), "zero_points": [Int](), "quantized_dimension": 0]
    }

    func tensorJSON(_ t: TFLiteTensor) -> [String: Any] {
        ["index": t.index, "name": t.name, "dtype": t.type.numpyName, "shape": t.shape,
         "shape_signature": t.shapeSignature, "quantization": quantizationJSON(t)]
    }

    func json() -> [String: Any] {
        let g = model.mainSubgraph
        let ops: [[String: Any]] = g.operators.map {
            ["index": $0.index, "op_name": $0.opName, "inputs": $0.inputs, "outputs": $0.outputs]
        }
        let histogram: [String: Int] = Dictionary(model.operatorHistogram.map { ($0.name, $0.count) }, uniquingKeysWith: +)
        func io(_ indices: [Int]) -> [[String: Any]] {
            indices.compactMap { i in i >= 0 && i < g.tensors.count ? tensorJSON(g.tensors[i]) : nil }
        }
        return [
            "model": (path as NSString).lastPathComponent,
            "file_size": model.fileSize,
            "schema_version": model.version,
            "description": model.description ?? NSNull(),
            "subgraph_count": model.subgraphs.count,
            "inputs": io(g.inputs),
            "outputs": io(g.outputs),
            "input_indices": g.inputs,
            "output_indices": g.outputs,
            "tensors": g.tensors.map(tensorJSON),
            "ops": ops,
            "op_histogram": histogram,
            "metadata": NSNull(),
            "family": "unknown",
        ]
    }

    func describe(_ t: TFLiteTensor) -> String {
        var s = "#\(t.index) '\(t.name)' \(t.type.numpyName) \(t.shape)"
        if t.shapeSignature != t.shape { s += " signature \(t.shapeSignature)" }
        if let q = t.quantization, q.isAffine {
            if q.scales.count == 1 {
                s += " scale \(q.scales[0]) zero point \(q.zeroPoints.first ?? 0)"
            } else {
                s += " per-channel (\(q.scales.count) scales, dimension \(q.quantizedDimension))"
            }
        }
        return s
    }

    func text() -> String {
        let g = model.mainSubgraph
        var lines: [String] = []
        lines.append("model: \(path) (\(model.fileSize) bytes, schema v\(model.version)\(model.description.map { ", \($0)" } ?? ""))")
        lines.append("subgraphs: \(model.subgraphs.count); subgraph 0: \(g.tensors.count) tensors, \(g.operators.count) operators")
        lines.append("inputs:")
        for i in g.inputs where i >= 0 && i < g.tensors.count { lines.append("  " + describe(g.tensors[i])) }
        lines.append("outputs:")
        for i in g.outputs where i >= 0 && i < g.tensors.count { lines.append("  " + describe(g.tensors[i])) }
        lines.append("operators:")
        for (name, count) in model.operatorHistogram.sorted(by: { $0.count > $1.count || ($0.count == $1.count && $0.name < $1.name) }) {
            lines.append("  \(name.padding(toLength: 32, withPad: " ", startingAt: 0)) \(count)")
        }
        return lines.joined(separator: "\n")
    }
}
