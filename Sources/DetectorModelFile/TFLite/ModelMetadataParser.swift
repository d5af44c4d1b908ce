import DetectorZlib
extension ModelMetadata {
    /// The metadata of `model` (from its `TFLITE_METADATA` buffer), or nil when it has none.
    /// Throws `TFLiteModelError` when the metadata buffer is present but malformed.
    package init?(model: TFLiteModel) throws {
        guard let range = model.metadataRange(named: "TFLITE_METADATA"), range.count > 0 else { return nil }
        try self.init(storage: model.storage, range: range)
    }

    /// Reads a `ModelMetadata` FlatBuffer (identifier `M001`) stored at `range` of `storage`.
    package init(storage: ByteStorage, range: ByteRange, limits: FlatBufferLimits = .default) throws {
        do {
            let buffer = try FlatBuffer(storage: storage, range: range, limits: limits)
            do { try buffer.requireIdentifier("M001") } catch let FlatBufferError.wrongIdentifier(_, found) {
                throw TFLiteModelError.invalidValue(what: "TFLITE_METADATA", location: "metadata at byte offset \(range.offset)",
                                                    reason: "has identifier '\(found)', expected 'M001'")
            }
            self = try MetadataParser.model(try buffer.root())
        } catch let e as FlatBufferError {
            throw TFLiteModelError.malformed(location: "TFLITE_METADATA at byte offset \(range.offset)", e)
        }
    }
}

/// Field slots follow the declaration order of `metadata_schema.fbs` (a union takes two slots).
enum MetadataParser {
    static func model(_ t: FlatBufferTable) throws -> ModelMetadata {
        ModelMetadata(name: try t.string(0), description: try t.string(1), version: try t.string(2),
                      author: try t.string(4), license: try t.string(5),
                      subgraphs: try (t.tables(3) ?? []).map(subgraph),
                      associatedFiles: try (t.tables(6) ?? []).map(file),
                      minParserVersion: try t.string(7))
    }

    static func subgraph(_ t: FlatBufferTable) throws -> SubGraphMetadata {
        SubGraphMetadata(name: try t.string(0), description: try t.string(1),
                         inputTensors: try (t.tables(2) ?? []).map(tensor),
                         outputTensors: try (t.tables(3) ?? []).map(tensor),
                         associatedFiles: try (t.tables(4) ?? []).map(file),
                         inputProcessUnits: try (t.tables(5) ?? []).map(processUnit),
                         outputProcessUnits: try (t.tables(6) ?? []).map(processUnit),
                         inputTensorGroups: try (t.tables(7) ?? []).map(group),
                         outputTensorGroups: try (t.tables(8) ?? []).map(group))
    }

    static func group(_ t: FlatBufferTable) throws -> TensorGroup {
        TensorGroup(name: try t.string(0), tensorNames: try t.strings(1) ?? [])
    }

    static func tensor(_ t: FlatBufferTable) throws -> TensorMetadata {
        var stats: TensorStats?
        if let s = try t.table(5) { stats = TensorStats(max: try s.floats(0) ?? [], min: try s.floats(1) ?? []) }
        return TensorMetadata(name: try t.string(0), description: try t.string(1),
                              dimensionNames: try t.strings(2) ?? [],
                              content: try t.table(3).map(content),
                              processUnits: try (t.tables(4) ?? []).map(processUnit),
                              stats: stats,
                              associatedFiles: try (t.tables(6) ?? []).map(file))
    }

    static func content(_ t: FlatBufferTable) throws -> ContentMetadata {
        let type = try t.unionType(0)
        var properties = ContentProperties.none
        if type != 0, let p = try t.table(1) {
            switch type {
            case 1: properties = .feature
            case 2:
                var size: (Int, Int)?
                if let s = try p.table(1) {
                    size = (Int(try s.scalar(0, default: UInt32(0))), Int(try s.scalar(1, default: UInt32(0))))
                }
                let raw = try p.scalar(0, default: Int8(0))
                properties = .image(ImageProperties(colorSpace: ColorSpaceType(rawValue: raw) ?? .unknown,
                                                    defaultWidth: size?.0, defaultHeight: size?.1))
            case 3:
                let index = (try p.scalars(0, as: UInt32.self) ?? []).map { Int($0) }
                let rawType = try p.scalar(1, default: Int8(0))
                let rawCoordinate = try p.scalar(2, default: Int8(0))
                guard let coordinate = CoordinateType(rawValue: rawCoordinate) else {
                    throw FlatBufferError.invalidValue(what: "BoundingBoxProperties.coordinate_type", offset: p.buffer.absolute(p.position), reason: "\(rawCoordinate) is not RATIO or PIXEL")
                }
                properties = .boundingBox(BoundingBoxProperties(index: index, type: BoundingBoxType(rawValue: rawType) ?? .unknown,
                                                                coordinateType: coordinate))
            case 4:
                properties = .audio(sampleRate: Int(try p.scalar(0, default: UInt32(0))), channels: Int(try p.scalar(1, default: UInt32(0))))
            default: properties = .other(unionType: type)
            }
        }
        var range: ClosedRange<Int>?
        if let r = try t.table(2) {
            let lo = Int(try r.scalar(0, default: Int32(0))), hi = Int(try r.scalar(1, default: Int32(0)))
            range = lo <= hi ? lo...hi : hi...lo
        }
        return ContentMetadata(properties: properties, range: range)
    }

    static func processUnit(_ t: FlatBufferTable) throws -> ProcessUnit {
        let type = try t.unionType(0)
        guard let o = try t.table(1) else { return .other(unionType: type) }
        switch type {
        case 1: return .normalization(NormalizationOptions(mean: try o.floats(0) ?? [], std: try o.floats(1) ?? []))
        case 2:
            let raw = try o.scalar(0, default: Int8(0))
            guard let transformation = ScoreTransformationType(rawValue: raw) else {
                throw FlatBufferError.invalidValue(what: "ScoreCalibrationOptions.score_transformation", offset: o.buffer.absolute(o.position), reason: "\(raw) is not IDENTITY, LOG or INVERSE_LOGISTIC")
            }
            return .scoreCalibration(ScoreCalibrationOptions(transformation: transformation, defaultScore: try o.float(1, default: 0)))
        case 3: return .scoreThresholding(globalScoreThreshold: try o.float(0, default: 0))
        case 4: return .bertTokenizer
        case 5: return .sentencePieceTokenizer
        case 6: return .regexTokenizer
        default: return .other(unionType: type)
        }
    }

    static func file(_ t: FlatBufferTable) throws -> AssociatedFileInfo {
        let raw = try t.scalar(2, default: Int8(0))
        return AssociatedFileInfo(name: try t.string(0) ?? "", description: try t.string(1),
                                  type: AssociatedFileType(rawValue: raw) ?? .unknown,
                                  locale: try t.string(3), version: try t.string(4))
    }
}
