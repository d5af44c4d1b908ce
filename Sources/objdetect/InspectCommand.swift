import Foundation
import DetectorCore

/// `objdetect inspect MODEL [--format json|text]`: what a .tflite model contains.
enum InspectCommand {
    static let spec = CommandSpec(
        name: "inspect", usage: "objdetect inspect MODEL [options]",
        summary: "describe a .tflite model (tensors, ops, metadata, labels, family)",
        options: [
            CommonOptions.format(["json", "text"], default: "text"),
            CommonOptions.json,
            CommonOptions.pretty,
            OptionSpec("--family", .choice(ModelFamily.allCases.map(\.rawValue)), default: "detected", help: "take the model as this family"),
            CommonOptions.locale,
        ],
        notes: ["MODEL: an embedded name (\(ModelCatalog.names.joined(separator: ", "))) or a .tflite file."])

    static let subcommand = Subcommand(spec: spec, handler: run)

    static func run(_ args: ParsedOptions) throws -> Int32 {
        guard args.positional.count == 1 else { throw UsageError("inspect takes one MODEL, got \(args.positional.count)") }
        let format = try CommonOptions.chosenFormat(args, fallback: "text")
        try CommonOptions.rejectPretty(args, format: format)
        let name = args.positional[0]
        let path = try CommonOptions.modelPath(name)
        let model = try TFLiteModel(contentsOfFile: path)
        let report = try InspectReport(model: model, path: path, familyOverride: args.string("--family").flatMap(ModelFamily.init(rawValue:)),
                                       locale: args.string("--locale"))
        if format == "json" {
            try printJSON(report.json(), pretty: args.flag("--pretty"))
        } else {
            try writeLine(report.text())
        }
        return 0
    }
}

/// Builds both renderings of `inspect` from one model.
struct InspectReport {
    let model: TFLiteModel
    let path: String
    let assets: ModelAssets
    let family: ModelFamilyInfo
    let labels: [String]?
    let calibration: (output: Int, calibration: ScoreCalibration)?

    init(model: TFLiteModel, path: String, familyOverride: ModelFamily?, locale: String?) throws {
        self.model = model
        self.path = path
        assets = try ModelAssets(model: model)
        family = ModelFamilyDetector.detect(model, override: familyOverride)
        labels = try assets.labels(locale: locale)
        calibration = try assets.scoreCalibration()
    }

    static func name(_ p: ContentProperties?) -> String {
        switch p {
        case nil, .none?: return "none"
        case .feature?: return "feature"
        case .image?: return "image"
        case .boundingBox?: return "bounding_box"
        case .audio?: return "audio"
        case .other?: return "other"
        }
    }

    func fileJSON(_ f: AssociatedFileInfo) -> [String: Any] {
        ["name": f.name, "type": String(describing: f.type), "locale": f.locale ?? NSNull()]
    }

    func tensorMetadataJSON(_ t: TensorMetadata) -> [String: Any] {
        var d: [String: Any] = ["name": t.name ?? NSNull(), "content": Self.name(t.content?.properties),
                                "associated_files": t.associatedFiles.map(fileJSON)]
        if case let .image(image)? = t.content?.properties { d["color_space"] = String(describing: image.colorSpace) }
        if let b = t.boundingBox {
            d["bounding_box"] = ["index": b.index, "type": String(describing: b.type), "coordinate_type": String(describing: b.coordinateType)]
        }
        if let r = t.content?.range { d["range"] = [r.lowerBound, r.upperBound] }
        for unit in t.processUnits {
            switch unit {
            case let .normalization(n): d["normalization"] = ["mean": n.mean.map(Double.init), "std": n.std.map(Double.init)]
            case let .scoreThresholding(v): d["score_threshold"] = Double(v)
            case let .scoreCalibration(c): d["score_calibration"] = ["transformation": String(describing: c.transformation), "default_score": Double(c.defaultScore)]
            default: break
            }
        }
        return d
    }

    func metadataJSON() -> Any {
        guard let m = assets.metadata else {
            return assets.archive.map { a in ["associated_files_in_archive": a.entries.map(\.name)] as [String: Any] } ?? NSNull()
        }
        let sg = m.subgraphs.first
        var d: [String: Any] = [
            "name": m.name ?? NSNull(), "description": m.description ?? NSNull(), "version": m.version ?? NSNull(),
            "author": m.author ?? NSNull(), "license": m.license ?? NSNull(), "min_parser_version": m.minParserVersion ?? NSNull(),
            "inputs": (sg?.inputTensors ?? []).map(tensorMetadataJSON),
            "outputs": (sg?.outputTensors ?? []).map(tensorMetadataJSON),
            "output_tensor_groups": (sg?.outputTensorGroups ?? []).map { ["name": $0.name ?? NSNull(), "tensor_names": $0.tensorNames] as [String: Any] },
            "associated_files": m.associatedFiles.map(fileJSON),
            "associated_files_in_archive": assets.archive?.entries.map(\.name) ?? [],
        ]
        if let n = m.inputNormalization { d["normalization"] = ["mean": n.mean.map(Double.init), "std": n.std.map(Double.init)] }
        d["score_threshold"] = assets.scoreThreshold.map { Double($0) } ?? NSNull()
        if let labels {
            d["label_count"] = labels.count
            d["labels_first"] = Array(labels.prefix(10))
        }
        if let c = calibration {
            d["score_calibration"] = ["output": c.output, "transformation": String(describing: c.calibration.transformation),
                                      "default_score": Double(c.calibration.defaultScore), "entries": c.calibration.sigmoids.count]
        }
        return d
    }

    func familyJSON() -> [String: Any] {
        ["name": family.family.rawValue, "reason": family.reason, "class_count": family.classCount ?? NSNull(),
         "candidate_count": family.candidateCount ?? NSNull(), "boxes_tensor": family.boxesTensor ?? NSNull(),
         "scores_tensor": family.scoresTensor ?? NSNull(), "overridden": family.overridden]
    }

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
            // Index lists exactly as in goldens/models/*.json; the tensors themselves follow.
            "inputs": g.inputs,
            "outputs": g.outputs,
            "input_tensors": io(g.inputs),
            "output_tensors": io(g.outputs),
            "tensors": g.tensors.map(tensorJSON),
            "ops": ops,
            "op_histogram": histogram,
            "metadata": metadataJSON(),
            "family": family.family.rawValue,
            "family_details": familyJSON(),
            "labels": labels ?? NSNull(),
            "kernel_tier": InstructionSetTier.best.description,
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
        lines.append("kernels: \(InstructionSetTier.best) (best this CPU supports: \(InstructionSetTier.supported); OBJDETECT_ISA lowers it)")
        lines.append("inputs:")
        for i in g.inputs where i >= 0 && i < g.tensors.count { lines.append("  " + describe(g.tensors[i])) }
        lines.append("outputs:")
        for i in g.outputs where i >= 0 && i < g.tensors.count { lines.append("  " + describe(g.tensors[i])) }
        lines.append("operators:")
        for (name, count) in model.operatorHistogram.sorted(by: { $0.count > $1.count || ($0.count == $1.count && $0.name < $1.name) }) {
            lines.append("  \(name.padding(toLength: 32, withPad: " ", startingAt: 0)) \(count)")
        }
        lines.append("family: \(family.family.rawValue) (\(family.reason))")
        if let m = assets.metadata {
            lines.append("metadata: \(m.name ?? "(no name)")\(m.version.map { " \($0)" } ?? "")")
            if let d = m.description, !d.isEmpty { lines.append("  description: \(d)") }
            if let n = m.inputNormalization { lines.append("  normalization: mean \(n.mean) std \(n.std)") }
            if let t = assets.scoreThreshold { lines.append("  score threshold: \(t)") }
            if let c = calibration {
                lines.append("  score calibration: output \(c.output), \(c.calibration.transformation), default \(c.calibration.defaultScore), \(c.calibration.sigmoids.count) classes")
            }
            for (i, t) in (m.subgraphs.first?.outputTensors ?? []).enumerated() {
                if let b = t.boundingBox { lines.append("  output \(i) '\(t.name ?? "")': boxes \(b.type) \(b.coordinateType) index \(b.index)") }
            }
        } else {
            lines.append("metadata: none")
        }
        if let labels {
            lines.append("labels: \(labels.count) (\(labels.prefix(5).joined(separator: ", "))\(labels.count > 5 ? ", …" : ""))")
        }
        if let a = assets.archive, !a.entries.isEmpty {
            lines.append("associated files: \(a.entries.map { "\($0.name) (\($0.uncompressedSize) bytes)" }.joined(separator: ", "))")
        }
        return lines.joined(separator: "\n")
    }
}
