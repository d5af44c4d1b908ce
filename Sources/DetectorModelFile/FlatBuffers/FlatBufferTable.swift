import DetectorZlib
/// One table of a `FlatBuffer`. Fields are addressed by their slot (the field's declaration index
/// in the schema, counting a union as two slots: its type then its value). Absent fields yield the
/// schema default given by the caller; present ones are bounds-checked against the table.
package struct FlatBufferTable {
    package let buffer: FlatBuffer
    /// Position of the table inside `buffer`.
    package let position: Int
    let vtable: Int
    let vtableSize: Int
    let inlineSize: Int

    /// Position of field `slot` inside the buffer, or nil when absent. Throws when the field
    /// (of `size` bytes) does not fit inside the table.
    @inline(__always) func fieldPosition(_ slot: Int, size: Int) throws -> Int? {
        guard slot >= 0 else { return nil }
        let entry = 4 + 2 * slot
        guard entry + 2 <= vtableSize else { return nil }
        let fieldOffset = Int(try buffer.load(UInt16.self, at: vtable + entry, what: "vtable entry"))
        if fieldOffset == 0 { return nil }
        guard fieldOffset >= 4, fieldOffset + size <= inlineSize else {
            throw FlatBufferError.invalidVTable(tableOffset: buffer.absolute(position),
                                                reason: "field \(slot) at offset \(fieldOffset) (\(size) bytes) is outside the \(inlineSize)-byte table")
        }
        return position + fieldOffset
    }

    /// Whether field `slot` is present.
    package func has(_ slot: Int) -> Bool {
        ((try? fieldPosition(slot, size: 1)) ?? nil) != nil
    }

    /// An integer field (any width, signed or unsigned), or `default` when absent.
    package func scalar<T: FixedWidthInteger>(_ slot: Int, default value: T) throws -> T {
        guard let p = try fieldPosition(slot, size: MemoryLayout<T>.size) else { return value }
        return try buffer.load(T.self, at: p)
    }

    /// A 32-bit float field, or `default` when absent.
    package func float(_ slot: Int, default value: Float) throws -> Float {
        guard let p = try fieldPosition(slot, size: 4) else { return value }
        return try buffer.loadFloat(at: p)
    }

    /// A 64-bit float field, or `default` when absent.
    package func double(_ slot: Int, default value: Double) throws -> Double {
        guard let p = try fieldPosition(slot, size: 8) else { return value }
        return try buffer.loadDouble(at: p)
    }

    /// A bool field (any non-zero byte is true), or `default` when absent.
    package func bool(_ slot: Int, default value: Bool) throws -> Bool {
        guard let p = try fieldPosition(slot, size: 1) else { return value }
        return try buffer.load(UInt8.self, at: p) != 0
    }

    /// A string field, or nil when absent.
    package func string(_ slot: Int) throws -> String? {
        guard let p = try fieldPosition(slot, size: 4) else { return nil }
        return try buffer.string(at: try buffer.offsetTarget(at: p, what: "string offset"), what: "string")
    }

    /// A sub-table field, or nil when absent.
    package func table(_ slot: Int) throws -> FlatBufferTable? {
        guard let p = try fieldPosition(slot, size: 4) else { return nil }
        return try buffer.table(at: try buffer.offsetTarget(at: p, what: "table offset"))
    }

    /// A vector field with elements of `elementSize` bytes (4 for tables/strings), or nil when absent.
    package func vector(_ slot: Int, elementSize: Int) throws -> FlatBufferVector? {
        guard let p = try fieldPosition(slot, size: 4) else { return nil }
        return try buffer.vector(at: try buffer.offsetTarget(at: p, what: "vector offset"), elementSize: elementSize, what: "vector")
    }

    /// The type tag of the union whose tag is in `slot` (0 = NONE).
    package func unionType(_ slot: Int) throws -> UInt8 {
        try scalar(slot, default: UInt8(0))
    }

    // MARK: - Materialising helpers

    /// A vector of integers copied into an array, or nil when absent.
    package func scalars<T: FixedWidthInteger>(_ slot: Int, as type: T.Type) throws -> [T]? {
        guard let v = try vector(slot, elementSize: MemoryLayout<T>.size) else { return nil }
        return try v.scalars(as: T.self)
    }

    /// A vector of `Int32` widened to `Int` (tensor indices, shapes), or nil when absent: no
    /// generic array in between (`scalars(_:as:)` unspecialized looked up `[T]`'s metadata on
    /// every call).
    package func int32s(_ slot: Int) throws -> [Int]? {
        guard let v = try vector(slot, elementSize: 4) else { return nil }
        try buffer.work.charge(v.count)
        guard v.count > 0, let base = buffer.base else { return [] }
        let p = base + v.start
        return [Int](unsafeUninitializedCapacity: v.count) { out, initialized in
            for i in 0..<v.count {
                out[i] = Int(Int32(littleEndian: p.loadUnaligned(fromByteOffset: i &* 4, as: Int32.self)))
            }
            initialized = v.count
        }
    }

    /// A vector of floats copied into an array, or nil when absent.
    package func floats(_ slot: Int) throws -> [Float]? {
        guard let v = try vector(slot, elementSize: 4) else { return nil }
        return try v.floats()
    }

    /// A vector of bools, or nil when absent.
    package func bools(_ slot: Int) throws -> [Bool]? {
        guard let v = try vector(slot, elementSize: 1) else { return nil }
        return try v.scalars(as: UInt8.self).map { $0 != 0 }
    }

    /// A vector of tables, or nil when absent.
    package func tables(_ slot: Int) throws -> [FlatBufferTable]? {
        guard let v = try vector(slot, elementSize: 4) else { return nil }
        try buffer.work.charge(v.count)
        var result: [FlatBufferTable] = []
        result.reserveCapacity(v.count)
        for i in 0..<v.count { result.append(try v.table(at: i)) }
        return result
    }

    /// A vector of strings, or nil when absent.
    package func strings(_ slot: Int) throws -> [String]? {
        guard let v = try vector(slot, elementSize: 4) else { return nil }
        try buffer.work.charge(v.count)
        var result: [String] = []
        result.reserveCapacity(v.count)
        for i in 0..<v.count { result.append(try v.string(at: i)) }
        return result
    }

    /// A `[ubyte]` vector as a byte range of the storage (no copy), or nil when absent.
    package func byteRange(_ slot: Int) throws -> ByteRange? {
        try vector(slot, elementSize: 1)?.byteRange
    }
}

/// A vector of a `FlatBuffer`: `count` elements of `elementSize` bytes starting at `start`
/// (already checked to lie inside the buffer).
package struct FlatBufferVector {
    package let buffer: FlatBuffer
    /// Position of the first element inside `buffer`.
    package let start: Int
    package let count: Int
    package let elementSize: Int

    /// The elements as a range of the underlying storage.
    package var byteRange: ByteRange {
        ByteRange(offset: buffer.range.offset + start, count: count * elementSize)
    }

    @inline(__always) func elementPosition(_ index: Int) throws -> Int {
        guard index >= 0, index < count else {
            throw FlatBufferError.invalidValue(what: "vector index", offset: buffer.absolute(start), reason: "index \(index) not below count \(count)")
        }
        return start + index * elementSize
    }

    /// Element `index` as an integer.
    package func scalar<T: FixedWidthInteger>(at index: Int, as type: T.Type) throws -> T {
        try buffer.load(T.self, at: try elementPosition(index))
    }

    /// Every element as an integer of type `T` (the element size must be `T`'s size).
    package func scalars<T: FixedWidthInteger>(as type: T.Type) throws -> [T] {
        guard elementSize == MemoryLayout<T>.size else {
            throw FlatBufferError.invalidValue(what: "vector", offset: buffer.absolute(start), reason: "element size \(elementSize) read as \(MemoryLayout<T>.size)-byte values")
        }
        try buffer.work.charge(count)
        guard count > 0, let base = buffer.base else { return [] }
        let p = base + start
        return [T](unsafeUninitializedCapacity: count) { out, initialized in
            for i in 0..<count {
                out[i] = T(littleEndian: p.loadUnaligned(fromByteOffset: i * MemoryLayout<T>.size, as: T.self))
            }
            initialized = count
        }
    }

    /// Every element as a 32-bit float.
    package func floats() throws -> [Float] {
        try scalars(as: UInt32.self).map { Float(bitPattern: $0) }
    }

    /// Element `index` as a table.
    package func table(at index: Int) throws -> FlatBufferTable {
        let p = try elementPosition(index)
        return try buffer.table(at: try buffer.offsetTarget(at: p, what: "table offset in vector"))
    }

    /// Element `index` as a string.
    package func string(at index: Int) throws -> String {
        let p = try elementPosition(index)
        return try buffer.string(at: try buffer.offsetTarget(at: p, what: "string offset in vector"), what: "string")
    }
}
