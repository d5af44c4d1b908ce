import Foundation
import DetectorCore

/// `inspect --json`: the document's shape as `Encodable` values, under the keys of
/// `goldens/models/*.json` (snake case). Absent values print as `null` (`Nullable`) where the
/// key is always there, and the key is left out where it only applies to some tensors.
struct InspectJSON: Encodable {
    let model: String
    let fileSize: Int
    let schemaVersion: Int
    let description: Nullable<String>
    let subgraphCount: Int
    // Index lists exactly as in goldens/models/*.json; the tensors themselves follow.
    let inputs: [Int]
    let outputs: [Int]
    let inputTensors: [Tensor]
    let outputTensors: [Tensor]
    let tensors: [Tensor]
    let ops: [Operator]
    let opHistogram: [String: Int]
    let metadata: Nullable<Metadata>
    let family: String
    let familyDetails: Family
    let labels: Nullable<[String]>
    let kernelTier: String

    enum CodingKeys: String, CodingKey {
        case model, fileSize = "file_size", schemaVersion = "schema_version", description, subgraphCount = "subgraph_count"
        case inputs, outputs, inputTensors = "input_tensors", outputTensors = "output_tensors", tensors, ops
        case opHistogram = "op_histogram", metadata, family, familyDetails = "family_details", labels, kernelTier = "kernel_tier"
    }

    struct Quantization: Encodable {
        let scales: [Double]
        let zeroPoints: [Int]
        let quantizedDimension: Int
        enum CodingKeys: String, CodingKey { case scales, zeroPoints = "zero_points", quantizedDimension = "quantized_dimension" }

        init(_ t: TFLiteTensor) {
            // The runtime only reports affine quantization (scales present).
            if let q = t.quantization, q.isAffine {
                scales = q.scales.map { Double($0) }
                zeroPoints = q.zeroPoints.map { Int($0) }
                quantizedDimension = q.quantizedDimension
            } else {
                scales = []
                zeroPoints = []
                quantizedDimension = 0
            }
        }
    }

    struct Tensor: Encodable {
        let index: Int
        let name: String
        let dtype: String
        let shape: [Int]
        let shapeSignature: [Int]
        let quantization: Quantization
        enum CodingKeys: String, CodingKey { case index, name, dtype, shape, shapeSignature = "shape_signature", quantization }

        init(_ t: TFLiteTensor) {
            index = t.index
            name = t.name
            dtype = t.type.numpyName
            shape = t.shape
            shapeSignature = t.shapeSignature
            quantization = Quantization(t)
        }
    }

    struct Operator: Encodable {
        let index: Int
        let opName: String
        let inputs: [Int]
        let outputs: [Int]
        enum CodingKeys: String, CodingKey { case index, opName = "op_name", inputs, outputs }
    }

    struct Family: Encodable {
        let name: String
        let reason: String
        let classCount: Nullable<Int>
        let candidateCount: Nullable<Int>
        let boxesTensor: Nullable<Int>
        let scoresTensor: Nullable<Int>
        let overridden: Bool
        enum CodingKeys: String, CodingKey {
            case name, reason, classCount = "class_count", candidateCount = "candidate_count"
            case boxesTensor = "boxes_tensor", scoresTensor = "scores_tensor", overridden
        }

        init(_ f: ModelFamilyInfo) {
            name = f.family.rawValue
            reason = f.reason
            classCount = Nullable(f.classCount)
            candidateCount = Nullable(f.candidateCount)
            boxesTensor = Nullable(f.boxesTensor)
            scoresTensor = Nullable(f.scoresTensor)
            overridden = f.overridden
        }
    }

    struct File: Encodable {
        let name: String
        let type: String
        let locale: Nullable<String>

        init(_ f: AssociatedFileInfo) {
            name = f.name
            type = String(describing: f.type)
            locale = Nullable(f.locale)
        }
    }

    struct Normalization: Encodable {
        let mean: [Double]
        let std: [Double]
    }

    struct BoundingBox: Encodable {
        let index: [Int]
        let type: String
        let coordinateType: String
        enum CodingKeys: String, CodingKey { case index, type, coordinateType = "coordinate_type" }
    }

    struct UnitCalibration: Encodable {
        let transformation: String
        let defaultScore: Double
        enum CodingKeys: String, CodingKey { case transformation, defaultScore = "default_score" }
    }

    /// A tensor's metadata; the keys after `associated_files` only where they apply.
    struct TensorMetadataJSON: Encodable {
        let name: Nullable<String>
        let content: String
        let associatedFiles: [File]
        var colorSpace: String?
        var boundingBox: BoundingBox?
        var range: [Int]?
        var normalization: Normalization?
        var scoreThreshold: Double?
        var scoreCalibration: UnitCalibration?
        enum CodingKeys: String, CodingKey {
            case name, content, associatedFiles = "associated_files", colorSpace = "color_space", boundingBox = "bounding_box"
            case range, normalization, scoreThreshold = "score_threshold", scoreCalibration = "score_calibration"
        }

        init(_ t: TensorMetadata) {
            name = Nullable(t.name)
            content = InspectReport.name(t.content?.properties)
            associatedFiles = t.associatedFiles.map(File.init)
            if case let .image(image)? = t.content?.properties { colorSpace = String(describing: image.colorSpace) }
            if let b = t.boundingBox {
                boundingBox = BoundingBox(index: b.index, type: String(describing: b.type), coordinateType: String(describing: b.coordinateType))
            }
            if let r = t.content?.range { range = [r.lowerBound, r.upperBound] }
            for unit in t.processUnits {
                switch unit {
                case let .normalization(n): normalization = Normalization(mean: n.mean.map(Double.init), std: n.std.map(Double.init))
                case let .scoreThresholding(v): scoreThreshold = Double(v)
                case let .scoreCalibration(c):
                    scoreCalibration = UnitCalibration(transformation: String(describing: c.transformation), defaultScore: Double(c.defaultScore))
                default: break
                }
            }
        }
    }

    struct TensorGroup: Encodable {
        let name: Nullable<String>
        let tensorNames: [String]
        enum CodingKeys: String, CodingKey { case name, tensorNames = "tensor_names" }
    }

    struct ModelCalibration: Encodable {
        let output: Int
        let transformation: String
        let defaultScore: Double
        let entries: Int
        enum CodingKeys: String, CodingKey { case output, transformation, defaultScore = "default_score", entries }
    }

    /// The model's metadata; `label_count`, `labels_first`, `normalization` and
    /// `score_calibration` only where the model has them.
    struct FullMetadata: Encodable {
        let name, description, version, author, license, minParserVersion: Nullable<String>
        let inputs: [TensorMetadataJSON]
        let outputs: [TensorMetadataJSON]
        let outputTensorGroups: [TensorGroup]
        let associatedFiles: [File]
        let associatedFilesInArchive: [String]
        var normalization: Normalization?
        let scoreThreshold: Nullable<Double>
        var labelCount: Int?
        var labelsFirst: [String]?
        var scoreCalibration: ModelCalibration?
        enum CodingKeys: String, CodingKey {
            case name, description, version, author, license, minParserVersion = "min_parser_version", inputs, outputs
            case outputTensorGroups = "output_tensor_groups", associatedFiles = "associated_files"
            case associatedFilesInArchive = "associated_files_in_archive", normalization, scoreThreshold = "score_threshold"
            case labelCount = "label_count", labelsFirst = "labels_first", scoreCalibration = "score_calibration"
        }
    }

    /// Without metadata: only the files of the model's ZIP archive, if it has one.
    struct ArchiveOnly: Encodable {
        let associatedFilesInArchive: [String]
        enum CodingKeys: String, CodingKey { case associatedFilesInArchive = "associated_files_in_archive" }
    }

    enum Metadata: Encodable {
        case full(FullMetadata)
        case archiveOnly(ArchiveOnly)

        func encode(to encoder: any Encoder) throws {
            switch self {
            case let .full(m): try m.encode(to: encoder)
            case let .archiveOnly(a): try a.encode(to: encoder)
            }
        }
    }
}

extension InspectReport {
    func metadataJSON() -> InspectJSON.Metadata? {
        guard let m = assets.metadata else {
            return assets.archive.map { .archiveOnly(InspectJSON.ArchiveOnly(associatedFilesInArchive: $0.entries.map(\.name))) }
        }
        let sg = m.subgraphs.first
        var d = InspectJSON.FullMetadata(
            name: Nullable(m.name), description: Nullable(m.description), version: Nullable(m.version),
            author: Nullable(m.author), license: Nullable(m.license), minParserVersion: Nullable(m.minParserVersion),
            inputs: (sg?.inputTensors ?? []).map(InspectJSON.TensorMetadataJSON.init),
            outputs: (sg?.outputTensors ?? []).map(InspectJSON.TensorMetadataJSON.init),
            outputTensorGroups: (sg?.outputTensorGroups ?? []).map { InspectJSON.TensorGroup(name: Nullable($0.name), tensorNames: $0.tensorNames) },
            associatedFiles: m.associatedFiles.map(InspectJSON.File.init),
            associatedFilesInArchive: assets.archive?.entries.map(\.name) ?? [],
            scoreThreshold: Nullable(assets.scoreThreshold.map { Double($0) }))
        if let n = m.inputNormalization { d.normalization = InspectJSON.Normalization(mean: n.mean.map(Double.init), std: n.std.map(Double.init)) }
        if let labels {
            d.labelCount = labels.count
            d.labelsFirst = Array(labels.prefix(10))
        }
        if let c = calibration {
            d.scoreCalibration = InspectJSON.ModelCalibration(output: c.output, transformation: String(describing: c.calibration.transformation),
                                                              defaultScore: Double(c.calibration.defaultScore), entries: c.calibration.sigmoids.count)
        }
        return .full(d)
    }

    func json() -> InspectJSON {
        let g = model.mainSubgraph
        func io(_ indices: [Int]) -> [InspectJSON.Tensor] {
            indices.compactMap { i in i >= 0 && i < g.tensors.count ? InspectJSON.Tensor(g.tensors[i]) : nil }
        }
        return InspectJSON(
            model: PathName.lastComponent(path),
            fileSize: model.fileSize,
            schemaVersion: model.version,
            description: Nullable(model.description),
            subgraphCount: model.subgraphs.count,
            inputs: g.inputs,
            outputs: g.outputs,
            inputTensors: io(g.inputs),
            outputTensors: io(g.outputs),
            tensors: g.tensors.map(InspectJSON.Tensor.init),
            ops: g.operators.map { InspectJSON.Operator(index: $0.index, opName: $0.opName, inputs: $0.inputs, outputs: $0.outputs) },
            opHistogram: Dictionary(model.operatorHistogram.map { ($0.name, $0.count) }, uniquingKeysWith: +),
            metadata: Nullable(metadataJSON()),
            family: family.family.rawValue,
            familyDetails: InspectJSON.Family(family),
            labels: Nullable(labels),
            kernelTier: InstructionSetTier.best.description)
    }
}
