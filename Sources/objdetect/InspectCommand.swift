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
