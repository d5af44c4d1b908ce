import DetectorZlib
import Foundation

/// A parsed `.tflite` model (TFLite FlatBuffer schema v3). All tables are decoded into Swift
/// values once, at init; constant tensor data stays in the model's bytes (`storage`) and is handed
/// out as views, never copied. Malformed files throw `TFLiteModelError`; nothing in reading traps.
///
/// ```swift
/// let model = try TFLiteModel(contentsOfFile: "detect.tflite")
/// let graph = model.mainSubgraph
/// for op in graph.operators { print(op.opName, op.inputs, op.outputs) }
/// if let weights = model.constantBytes(of: graph.tensors[2]) { print(weights.count) }
/// ```
public final class TFLiteModel: Sendable {
    /// The model file's bytes (memory-mapped when opened from a file).
    package let storage: ByteStorage
    /// `Model.version` (always 3 here).
    public let version: Int
    public let operatorCodes: [TFLiteOperatorCode]
    /// Subgraph 0 is the main model; there is always at least one.
    public let subgraphs: [TFLiteSubGraph]
    /// `Model.description` (usually the converter's name).
    public let description: String?
    public let buffers: [TFLiteBuffer]
    /// The deprecated `metadata_buffer` list (buffer indices).
    public let metadataBufferIndices: [Int]
    public let metadataEntries: [TFLiteMetadataEntry]
    public let signatureDefs: [TFLiteSignatureDef]

    /// The main subgraph (subgraph 0).
    public var mainSubgraph: TFLiteSubGraph { subgraphs[0] }

    /// Reads a model from bytes already in memory (copied once into an aligned allocation).
    public convenience init(data: Data, limits: FlatBufferLimits = .default) throws {
        try self.init(storage: ByteStorage(copying: data), limits: limits)
    }

    /// Reads a model file (memory-mapped: the file is not copied).
    public convenience init(contentsOfFile path: String, limits: FlatBufferLimits = .default) throws {
        let storage: ByteStorage
        do { storage = try ByteStorage(contentsOfFile: path) } catch let ByteStorageError.cannotOpen(p, reason) {
            throw TFLiteModelError.cannotOpen(path: p, reason: reason)
        }
        try self.init(storage: storage, limits: limits)
    }

    /// Reads the model held by `storage`.
    package init(storage: ByteStorage, limits: FlatBufferLimits = .default) throws {
        self.storage = storage
        let parsed = try TFLiteModelParser(storage: storage, limits: limits).parse()
        version = parsed.version
        operatorCodes = parsed.operatorCodes
        subgraphs = parsed.subgraphs
        description = parsed.description
        buffers = parsed.buffers
        metadataBufferIndices = parsed.metadataBufferIndices
        metadataEntries = parsed.metadataEntries
        signatureDefs = parsed.signatureDefs
    }

    /// Size of the model file in bytes.
    public var fileSize: Int { storage.count }

    /// The bytes of buffer `index` (empty for an empty or unknown buffer). The pointer is valid as
    /// long as this model is alive.
    public func bytes(ofBuffer index: Int) -> UnsafeRawBufferPointer {
        guard index >= 0, index < buffers.count, let r = buffers[index].range else {
            return UnsafeRawBufferPointer(start: nil, count: 0)
        }
        return storage.slice(r)
    }

    /// The constant data of `tensor` (nil when the tensor has no data, i.e. is computed at run time).
    /// The pointer is valid as long as this model is alive.
    public func constantBytes(of tensor: TFLiteTensor) -> UnsafeRawBufferPointer? {
        let b = bytes(ofBuffer: tensor.bufferIndex)
        return b.count > 0 ? b : nil
    }

    /// Calls `body` with the constant data of `tensor` (nil when it has none), keeping the model alive.
    public func withConstantBytes<R>(of tensor: TFLiteTensor, _ body: (UnsafeRawBufferPointer?) throws -> R) rethrows -> R {
        try withExtendedLifetime(self) { try body(constantBytes(of: tensor)) }
    }

    /// The custom options bytes of `op` (empty when it has none).
    public func customOptionsBytes(of op: TFLiteOperator) -> UnsafeRawBufferPointer {
        guard let r = op.customOptions else { return UnsafeRawBufferPointer(start: nil, count: 0) }
        return storage.slice(r)
    }

    /// The byte range of the metadata entry called `name` (e.g. `TFLITE_METADATA`), if present and non-empty.
    public func metadataRange(named name: String) -> ByteRange? {
        guard let entry = metadataEntries.first(where: { $0.name == name }),
              entry.bufferIndex >= 0, entry.bufferIndex < buffers.count else { return nil }
        return buffers[entry.bufferIndex].range
    }

    /// The operator names of subgraph 0 with how often each occurs.
    public var operatorHistogram: [(name: String, count: Int)] {
        var counts: [String: Int] = [:]
        var order: [String] = []
        for op in mainSubgraph.operators {
            if counts[op.opName] == nil { order.append(op.opName) }
            counts[op.opName, default: 0] += 1
        }
        return order.map { ($0, counts[$0] ?? 0) }
    }
}
