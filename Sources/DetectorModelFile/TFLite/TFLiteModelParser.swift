import DetectorZlib
/// Decodes the schema-v3 tables of a model into Swift values, validating every index the way the
/// official runtime's interpreter builder does.
struct TFLiteModelParser {
    struct Parsed {
        var version = 0
        var operatorCodes: [TFLiteOperatorCode] = []
        var subgraphs: [TFLiteSubGraph] = []
        var description: String?
        var buffers: [TFLiteBuffer] = []
        var metadataBufferIndices: [Int] = []
        var metadataEntries: [TFLiteMetadataEntry] = []
        var signatureDefs: [TFLiteSignatureDef] = []
    }

    // Field slots of the schema tables (declaration order; a union takes two slots).
    enum ModelSlot { static let version = 0, operatorCodes = 1, subgraphs = 2, description = 3, buffers = 4, metadataBuffer = 5, metadata = 6, signatureDefs = 7 }
    enum OperatorCodeSlot { static let deprecatedBuiltinCode = 0, customCode = 1, version = 2, builtinCode = 3 }
    enum SubGraphSlot { static let tensors = 0, inputs = 1, outputs = 2, operators = 3, name = 4 }
    enum TensorSlot { static let shape = 0, type = 1, buffer = 2, name = 3, quantization = 4, isVariable = 5, sparsity = 6, shapeSignature = 7, hasRank = 8 }
    enum QuantizationSlot { static let min = 0, max = 1, scale = 2, zeroPoint = 3, detailsType = 4, details = 5, quantizedDimension = 6 }
    enum SparsitySlot { static let traversalOrder = 0, blockMap = 1, dimMetadata = 2 }
    enum DimensionSlot { static let format = 0, denseSize = 1, segmentsType = 2, segments = 3, indicesType = 4, indices = 5 }
    enum OperatorSlot { static let opcodeIndex = 0, inputs = 1, outputs = 2, optionsType = 3, options = 4, customOptions = 5, customOptionsFormat = 6, mutatingVariableInputs = 7, intermediates = 8, largeCustomOffset = 9, largeCustomSize = 10, options2Type = 11 }
    enum BufferSlot { static let data = 0, offset = 1, size = 2 }
    enum MetadataSlot { static let name = 0, buffer = 1 }
    enum SignatureSlot { static let inputs = 0, outputs = 1, key = 2, subgraphIndex = 4 }
    enum TensorMapSlot { static let name = 0, tensorIndex = 1 }

    let storage: ByteStorage
    let limits: FlatBufferLimits

    /// Runs `body`, labelling any `FlatBufferError` with `location`.
    func at<T>(_ location: @autoclosure () -> String, _ body: () throws -> T) throws -> T {
        do { return try body() } catch let e as FlatBufferError {
            throw TFLiteModelError.malformed(location: location(), e)
        }
    }

    func parse() throws -> Parsed {
        let buffer = try at("file header") { try FlatBuffer(storage: storage, limits: limits) }
        guard buffer.size >= 8 else {
            throw TFLiteModelError.malformed(location: "file header", .bufferTooSmall(size: buffer.size, needed: 8))
        }
        do { try buffer.requireIdentifier("TFL3") } catch FlatBufferError.wrongIdentifier(_, let found) {
            throw TFLiteModelError.wrongIdentifier(found: found)
        }
        let root = try at("model table") { try buffer.root() }
        var out = Parsed()
        out.version = Int(try at("model version") { try root.scalar(ModelSlot.version, default: UInt32(0)) })
        guard out.version == 3 else { throw TFLiteModelError.unsupportedSchemaVersion(out.version) }
        out.description = try at("model description") { try root.string(ModelSlot.description) }

        // Buffers first: tensors refer to them.
        let bufferTables = try at("model buffers") { try root.tables(ModelSlot.buffers) ?? [] }
        out.buffers.reserveCapacity(bufferTables.count)
        for i in bufferTables.indices {
            let t = bufferTables[i]
            out.buffers.append(try parseBuffer(t, index: i))
        }

        let codeTables = try at("operator codes") { try root.tables(ModelSlot.operatorCodes) ?? [] }
        for i in codeTables.indices {
            let t = codeTables[i]
            out.operatorCodes.append(try at("operator code \(i)") { try parseOperatorCode(t) })
        }

        let subgraphTables = try at("subgraphs") { try root.tables(ModelSlot.subgraphs) ?? [] }
        guard !subgraphTables.isEmpty else { throw TFLiteModelError.missing(what: "subgraph 0 (the model has no subgraphs)") }
        for i in subgraphTables.indices {
            let t = subgraphTables[i]
            out.subgraphs.append(try parseSubGraph(t, index: i, codes: out.operatorCodes, bufferCount: out.buffers.count))
        }

        out.metadataBufferIndices = try at("metadata_buffer") {
            try root.int32s(ModelSlot.metadataBuffer) ?? []
        }
        let metadataTables = try at("metadata") { try root.tables(ModelSlot.metadata) ?? [] }
        for i in metadataTables.indices {
            let t = metadataTables[i]
            let entry = try at("metadata \(i)") {
                TFLiteMetadataEntry(name: try t.string(MetadataSlot.name) ?? "",
                                    bufferIndex: Int(try t.scalar(MetadataSlot.buffer, default: UInt32(0))))
            }
            guard entry.bufferIndex < out.buffers.count else {
                throw TFLiteModelError.indexOutOfRange(what: "buffer", index: entry.bufferIndex, count: out.buffers.count, location: "metadata \(i) '\(entry.name)'")
            }
            out.metadataEntries.append(entry)
        }

        let signatureTables = try at("signature defs") { try root.tables(ModelSlot.signatureDefs) ?? [] }
        for i in signatureTables.indices {
            let t = signatureTables[i]
            out.signatureDefs.append(try parseSignature(t, index: i, subgraphs: out.subgraphs))
        }
        return out
    }

    func parseBuffer(_ t: FlatBufferTable, index: Int) throws -> TFLiteBuffer {
        try at("buffer \(index)") {
            if let r = try t.byteRange(BufferSlot.data), r.count > 0 {
                return TFLiteBuffer(range: r)
            }
            let offset = try t.scalar(BufferSlot.offset, default: UInt64(0))
            let size = try t.scalar(BufferSlot.size, default: UInt64(0))
            // Offsets are from the start of the file and only meaningful when > 1.
            guard offset > 1 else { return TFLiteBuffer(range: nil) }
            guard offset <= UInt64(storage.count), size <= UInt64(storage.count) - offset else {
                throw FlatBufferError.outOfBounds(what: "external buffer data", offset: Int(clamping: offset),
                                                  length: Int(clamping: size), bufferSize: storage.count)
            }
            return TFLiteBuffer(range: ByteRange(offset: Int(offset), count: Int(size)), isExternal: true)
        }
    }

    func parseOperatorCode(_ t: FlatBufferTable) throws -> TFLiteOperatorCode {
        let deprecated = try t.scalar(OperatorCodeSlot.deprecatedBuiltinCode, default: Int8(0))
        let builtin = try t.scalar(OperatorCodeSlot.builtinCode, default: Int32(0))
        let version = try t.scalar(OperatorCodeSlot.version, default: Int32(1))
        let custom = try t.string(OperatorCodeSlot.customCode)
        // As the runtime does: the larger of the two fields is the code.
        let code = max(Int32(deprecated), builtin)
        return TFLiteOperatorCode(builtinCode: BuiltinOperator(rawValue: code), customCode: custom,
                                  version: Int(version), deprecatedBuiltinCode: deprecated, rawBuiltinCode: builtin)
    }

    func indices(_ t: FlatBufferTable, _ slot: Int) throws -> [Int] {
        try t.int32s(slot) ?? []
    }

    /// Tensor indices must be -1 (absent) or name a tensor.
    func checkTensorIndices(_ list: [Int], count: Int, what: String, location: @autoclosure () -> String) throws {
        for i in list where i < -1 || i >= count {
            throw TFLiteModelError.indexOutOfRange(what: what, index: i, count: count, location: location())
        }
    }

    func parseSubGraph(_ t: FlatBufferTable, index s: Int, codes: [TFLiteOperatorCode], bufferCount: Int) throws -> TFLiteSubGraph {
        let name = try at("subgraph \(s) name") { try t.string(SubGraphSlot.name) }
        let tensorTables = try at("subgraph \(s) tensors") { try t.tables(SubGraphSlot.tensors) ?? [] }
        var tensors: [TFLiteTensor] = []
        tensors.reserveCapacity(tensorTables.count)
        for i in tensorTables.indices {
            let tt = tensorTables[i]
            tensors.append(try parseTensor(tt, index: i, subgraph: s, bufferCount: bufferCount))
        }
        let inputs = try at("subgraph \(s) inputs") { try indices(t, SubGraphSlot.inputs) }
        let outputs = try at("subgraph \(s) outputs") { try indices(t, SubGraphSlot.outputs) }
        try checkTensorIndices(inputs, count: tensors.count, what: "input tensor", location: "subgraph \(s)")
        try checkTensorIndices(outputs, count: tensors.count, what: "output tensor", location: "subgraph \(s)")
        let opTables = try at("subgraph \(s) operators") { try t.tables(SubGraphSlot.operators) ?? [] }
        var ops: [TFLiteOperator] = []
        ops.reserveCapacity(opTables.count)
        for i in opTables.indices {
            let ot = opTables[i]
            ops.append(try parseOperator(ot, index: i, subgraph: s, codes: codes, tensorCount: tensors.count))
        }
        return TFLiteSubGraph(name: name, tensors: tensors, inputs: inputs, outputs: outputs, operators: ops)
    }

    func parseTensor(_ t: FlatBufferTable, index i: Int, subgraph s: Int, bufferCount: Int) throws -> TFLiteTensor {
        // Built only when an error is thrown: one string per tensor was a tenth of a small model's parse.
        func location() -> String { "subgraph \(s), tensor \(i)" }
        return try at(location()) {
            let shape = try indices(t, TensorSlot.shape)
            let rawType = try t.scalar(TensorSlot.type, default: Int8(0))
            guard let type = TensorDataType(rawValue: Int(rawType)) else {
                throw TFLiteModelError.invalidValue(what: "tensor type", location: location(), reason: "\(rawType) is not a TensorType")
            }
            let bufferIndex = Int(try t.scalar(TensorSlot.buffer, default: UInt32(0)))
            guard bufferIndex < max(bufferCount, 1) else {
                throw TFLiteModelError.indexOutOfRange(what: "buffer", index: bufferIndex, count: bufferCount, location: location())
            }
            let name = try t.string(TensorSlot.name) ?? ""
            var quantization: TFLiteQuantization?
            if let q = try t.table(TensorSlot.quantization) {
                quantization = try parseQuantization(q, shape: shape, location: location())
            }
            let isVariable = try t.bool(TensorSlot.isVariable, default: false)
            var sparsity: TFLiteSparsity?
            if let sp = try t.table(TensorSlot.sparsity) {
                sparsity = try parseSparsity(sp, location: location())
            }
            let signature = try t.int32s(TensorSlot.shapeSignature)
            let hasRank = try t.bool(TensorSlot.hasRank, default: false)
            return TFLiteTensor(index: i, name: name, type: type, shape: shape,
                                shapeSignature: (signature?.isEmpty ?? true) ? nil : signature,
                                bufferIndex: bufferIndex, quantization: quantization, isVariable: isVariable,
                                sparsity: sparsity, hasRank: hasRank)
        }
    }

    func parseQuantization(_ q: FlatBufferTable, shape: [Int], location: @autoclosure () -> String) throws -> TFLiteQuantization {
        var result = TFLiteQuantization()
        result.min = try q.floats(QuantizationSlot.min) ?? []
        result.max = try q.floats(QuantizationSlot.max) ?? []
        let scales = try q.floats(QuantizationSlot.scale)
        let zeroPoints = try q.scalars(QuantizationSlot.zeroPoint, as: Int64.self)
        result.quantizedDimension = Int(try q.scalar(QuantizationSlot.quantizedDimension, default: Int32(0)))
        if try q.unionType(QuantizationSlot.detailsType) == 1, let custom = try q.table(QuantizationSlot.details) {
            result.custom = try custom.byteRange(0)
        }
        result.scales = scales ?? []
        result.zeroPoints = zeroPoints ?? []
        // The runtime's rules for affine quantization (only checked when there are scales).
        if let scales, !scales.isEmpty, result.custom == nil {
            guard let zeroPoints else {
                throw TFLiteModelError.invalidValue(what: "quantization", location: location(), reason: "has \(scales.count) scales but no zero points")
            }
            guard zeroPoints.count == scales.count else {
                throw TFLiteModelError.invalidValue(what: "quantization", location: location(), reason: "has \(scales.count) scales but \(zeroPoints.count) zero points")
            }
            let qd = result.quantizedDimension
            guard qd >= 0, shape.isEmpty || qd < shape.count else {
                throw TFLiteModelError.invalidValue(what: "quantized_dimension", location: location(), reason: "\(qd) is outside the tensor's \(shape.count) dimensions")
            }
            if scales.count != 1, !shape.isEmpty, scales.count != shape[qd] {
                throw TFLiteModelError.invalidValue(what: "quantization", location: location(), reason: "has \(scales.count) scales for \(shape[qd]) channels along dimension \(qd)")
            }
        }
        return result
    }

    func parseIndexVector(_ d: FlatBufferTable, typeSlot: Int, valueSlot: Int) throws -> TFLiteSparseIndexVector? {
        let type = try d.unionType(typeSlot)
        guard type != 0, let v = try d.table(valueSlot) else { return nil }
        switch type {
        case 1: return .int32(try v.scalars(0, as: Int32.self) ?? [])
        case 2: return .uint16(try v.scalars(0, as: UInt16.self) ?? [])
        case 3: return .uint8(try v.scalars(0, as: UInt8.self) ?? [])
        default:
            throw FlatBufferError.invalidValue(what: "sparse index vector type", offset: d.buffer.absolute(d.position), reason: "\(type) is not 1, 2 or 3")
        }
    }

    func parseSparsity(_ sp: FlatBufferTable, location: @autoclosure () -> String) throws -> TFLiteSparsity {
        let order = try indices(sp, SparsitySlot.traversalOrder)
        let blockMap = try indices(sp, SparsitySlot.blockMap)
        var dims: [TFLiteDimensionMetadata] = []
        for d in try sp.tables(SparsitySlot.dimMetadata) ?? [] {
            let rawFormat = try d.scalar(DimensionSlot.format, default: UInt8(0))
            guard let format = TFLiteDimensionType(rawValue: rawFormat) else {
                throw TFLiteModelError.invalidValue(what: "sparse dimension format", location: location(), reason: "\(rawFormat) is not DENSE or SPARSE_CSR")
            }
            dims.append(TFLiteDimensionMetadata(
                format: format,
                denseSize: Int(try d.scalar(DimensionSlot.denseSize, default: Int32(0))),
                arraySegments: try parseIndexVector(d, typeSlot: DimensionSlot.segmentsType, valueSlot: DimensionSlot.segments),
                arrayIndices: try parseIndexVector(d, typeSlot: DimensionSlot.indicesType, valueSlot: DimensionSlot.indices)))
        }
        return TFLiteSparsity(traversalOrder: order, blockMap: blockMap, dimensionMetadata: dims)
    }

    func parseOperator(_ t: FlatBufferTable, index i: Int, subgraph s: Int, codes: [TFLiteOperatorCode], tensorCount: Int) throws -> TFLiteOperator {
        // Built only when an error is thrown: one string per tensor was a tenth of a small model's parse.
        func location() -> String { "subgraph \(s), operator \(i)" }
        return try at(location()) {
            let opcodeIndex = Int(try t.scalar(OperatorSlot.opcodeIndex, default: UInt32(0)))
            guard opcodeIndex < codes.count else {
                throw TFLiteModelError.indexOutOfRange(what: "opcode index", index: opcodeIndex, count: codes.count, location: location())
            }
            let inputs = try indices(t, OperatorSlot.inputs)
            let outputs = try indices(t, OperatorSlot.outputs)
            let intermediates = try indices(t, OperatorSlot.intermediates)
            try checkTensorIndices(inputs, count: tensorCount, what: "input tensor", location: location())
            try checkTensorIndices(outputs, count: tensorCount, what: "output tensor", location: location())
            try checkTensorIndices(intermediates, count: tensorCount, what: "intermediate tensor", location: location())
            let optionsType = try t.unionType(OperatorSlot.optionsType)
            var options = BuiltinOptions.none
            if optionsType != 0, let table = try t.table(OperatorSlot.options) {
                options = try BuiltinOptionsDecoder.decode(type: optionsType, table: table, location: location())
            }
            var custom = try t.byteRange(OperatorSlot.customOptions)
            if custom == nil || custom?.count == 0 {
                let offset = try t.scalar(OperatorSlot.largeCustomOffset, default: UInt64(0))
                let size = try t.scalar(OperatorSlot.largeCustomSize, default: UInt64(0))
                if offset > 1 {
                    guard offset <= UInt64(storage.count), size <= UInt64(storage.count) - offset else {
                        throw FlatBufferError.outOfBounds(what: "large custom options", offset: Int(clamping: offset),
                                                          length: Int(clamping: size), bufferSize: storage.count)
                    }
                    custom = ByteRange(offset: Int(offset), count: Int(size))
                }
            }
            return TFLiteOperator(
                index: i, opcodeIndex: opcodeIndex, code: codes[opcodeIndex], inputs: inputs, outputs: outputs,
                intermediates: intermediates, builtinOptions: options, builtinOptionsType: optionsType,
                builtinOptions2Type: try t.unionType(OperatorSlot.options2Type), customOptions: custom,
                customOptionsFormat: try t.scalar(OperatorSlot.customOptionsFormat, default: UInt8(0)),
                mutatingVariableInputs: try t.bools(OperatorSlot.mutatingVariableInputs) ?? [])
        }
    }

    func parseSignature(_ t: FlatBufferTable, index i: Int, subgraphs: [TFLiteSubGraph]) throws -> TFLiteSignatureDef {
        // Built only when an error is thrown: one string per tensor was a tenth of a small model's parse.
        func location() -> String { "signature \(i)" }
        return try at(location()) {
            let subgraphIndex = Int(try t.scalar(SignatureSlot.subgraphIndex, default: UInt32(0)))
            guard subgraphIndex < subgraphs.count else {
                throw TFLiteModelError.indexOutOfRange(what: "subgraph", index: subgraphIndex, count: subgraphs.count, location: location())
            }
            let tensorCount = subgraphs[subgraphIndex].tensors.count
            func maps(_ slot: Int) throws -> [TFLiteTensorMap] {
                try (t.tables(slot) ?? []).map { m in
                    let map = TFLiteTensorMap(name: try m.string(TensorMapSlot.name) ?? "",
                                              tensorIndex: Int(try m.scalar(TensorMapSlot.tensorIndex, default: UInt32(0))))
                    guard map.tensorIndex < tensorCount else {
                        throw TFLiteModelError.indexOutOfRange(what: "tensor", index: map.tensorIndex, count: tensorCount, location: "\(location()) '\(map.name)'")
                    }
                    return map
                }
            }
            return TFLiteSignatureDef(key: try t.string(SignatureSlot.key), subgraphIndex: subgraphIndex,
                                      inputs: try maps(SignatureSlot.inputs), outputs: try maps(SignatureSlot.outputs))
        }
    }
}
