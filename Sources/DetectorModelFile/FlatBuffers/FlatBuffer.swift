import DetectorZlib
/// Limits that keep reading a hostile buffer bounded in time and memory.
public struct FlatBufferLimits: Sendable, Equatable {
    /// Elements (table visits, vector and string elements materialised) allowed per byte of the
    /// storage, plus `baseWork`. Every element of an honest buffer occupies at least one byte and is
    /// visited once, so honest buffers stay below 1 per byte; buffers whose offsets share one big
    /// table or vector many times over (quadratic blow-up) stop here with `workLimitExceeded`.
    public var workPerByte: Int
    /// Work allowed regardless of size.
    public var baseWork: Int
    /// Nested buffers / containers deeper than this are rejected.
    public var maxDepth: Int

    public init(workPerByte: Int = 2, baseWork: Int = 1 << 16, maxDepth: Int = 16) {
        self.workPerByte = workPerByte
        self.baseWork = baseWork
        self.maxDepth = maxDepth
    }

    public static let `default` = FlatBufferLimits()
}

/// What every view of one file shares while it is read: the bytes, the limits and the work
/// counted so far (nested buffers read from the file charge the same counter). One reference per
/// view, so copying a table or vector retains one object, not two.
package final class FlatBufferReading {
    /// The bytes the buffers live in.
    package let storage: ByteStorage
    let limits: FlatBufferLimits
    package private(set) var remaining: Int
    package let limit: Int

    package init(storage: ByteStorage, limits: FlatBufferLimits, limit: Int) {
        self.storage = storage
        self.limits = limits
        self.remaining = limit
        self.limit = limit
    }

    @inline(__always) func charge(_ n: Int) throws {
        if n > remaining { throw FlatBufferError.workLimitExceeded(limit: limit) }
        remaining -= n
    }
}

/// A bounds-checked view of one FlatBuffer inside a `ByteStorage` (a whole file, or a nested
/// buffer inside a `[ubyte]` vector). Every offset is validated before it is followed; a bad one
/// throws `FlatBufferError`, never traps.
///
/// ```swift
/// let buffer = try FlatBuffer(storage: storage)
/// try buffer.requireIdentifier("TFL3")
/// let root = try buffer.root()
/// let version: UInt32 = try root.scalar(0, default: 0)
/// ```
package struct FlatBuffer {
    /// The storage, limits and work counter shared with every buffer nested in the same file.
    package let work: FlatBufferReading
    /// Where this buffer lies inside `storage`.
    package let range: ByteRange
    /// Nesting level (0 for a file, +1 for each nested buffer).
    package let depth: Int
    package let base: UnsafeRawPointer?

    /// The bytes this buffer lives in.
    @inline(__always) package var storage: ByteStorage { work.storage }
    @inline(__always) var limits: FlatBufferLimits { work.limits }

    /// Number of bytes in this buffer.
    @inline(__always) package var size: Int { range.count }

    /// A view of the whole storage (or of `range` inside it) as a FlatBuffer.
    package init(storage: ByteStorage, range: ByteRange? = nil, limits: FlatBufferLimits = .default) throws {
        let r = range ?? ByteRange(offset: 0, count: storage.count)
        guard r.offset >= 0, r.count >= 0, r.offset <= storage.count, r.count <= storage.count - r.offset else {
            throw FlatBufferError.outOfBounds(what: "buffer", offset: r.offset, length: r.count, bufferSize: storage.count)
        }
        let (scaled, overflow) = storage.count.multipliedReportingOverflow(by: max(0, limits.workPerByte))
        let limit = overflow ? Int.max : scaled.addingReportingOverflow(limits.baseWork).overflow ? Int.max : scaled + limits.baseWork
        self.init(range: r, depth: 0, work: FlatBufferReading(storage: storage, limits: limits, limit: limit))
    }

    private init(range: ByteRange, depth: Int, work: FlatBufferReading) {
        self.range = range
        self.depth = depth
        self.work = work
        self.base = work.storage.bytes.baseAddress.map { $0 + range.offset }
    }

    /// The 4-byte file identifier (bytes 4..<8) as text, or nil when the buffer is shorter than 8 bytes.
    package var identifier: String? {
        guard size >= 8, let base else { return nil }
        let bytes = (4..<8).map { base.load(fromByteOffset: $0, as: UInt8.self) }
        return String(decoding: bytes, as: UTF8.self)
    }

    /// Throws `wrongIdentifier` unless the file identifier equals `expected` (4 ASCII characters).
    package func requireIdentifier(_ expected: String) throws {
        guard size >= 8, let base else { throw FlatBufferError.bufferTooSmall(size: size, needed: 8) }
        // Bytes compared in place; the text is built only for the error.
        var matches = expected.utf8.count == 4, position = 4
        for byte in expected.utf8 where matches {
            matches = base.load(fromByteOffset: position, as: UInt8.self) == byte
            position += 1
        }
        if matches { return }
        let found = identifier ?? ""
        guard found == expected else {
            let printable = String(found.unicodeScalars.map { $0.isASCII && $0.value >= 0x20 && $0.value < 0x7F ? Character($0) : "?" })
            throw FlatBufferError.wrongIdentifier(expected: expected, found: printable)
        }
    }

    /// The root table.
    package func root() throws -> FlatBufferTable {
        guard size >= 4 else { throw FlatBufferError.bufferTooSmall(size: size, needed: 4) }
        let position = try offsetTarget(at: 0, what: "root offset")
        return try table(at: position)
    }

    /// A nested FlatBuffer stored in `vector` (a `[ubyte]` vector of this buffer).
    package func nested(_ vector: FlatBufferVector) throws -> FlatBuffer {
        guard depth + 1 <= limits.maxDepth else {
            throw FlatBufferError.tooDeep(limit: limits.maxDepth, offset: absolute(vector.start))
        }
        let r = vector.byteRange
        return FlatBuffer(range: r, depth: depth + 1, work: work)
    }

    /// A nested FlatBuffer stored at `range` of the same storage (e.g. a model buffer).
    package func nested(range r: ByteRange) throws -> FlatBuffer {
        guard depth + 1 <= limits.maxDepth else {
            throw FlatBufferError.tooDeep(limit: limits.maxDepth, offset: r.offset)
        }
        guard r.offset >= 0, r.count >= 0, r.offset <= storage.count, r.count <= storage.count - r.offset else {
            throw FlatBufferError.outOfBounds(what: "nested buffer", offset: r.offset, length: r.count, bufferSize: storage.count)
        }
        return FlatBuffer(range: r, depth: depth + 1, work: work)
    }

    // MARK: - Primitive, checked access (positions are relative to the start of this buffer)

    /// The position in the whole storage of a position in this buffer (for error messages).
    @inline(__always) func absolute(_ position: Int) -> Int { range.offset &+ position }

    @inline(__always) package func check(_ position: Int, _ length: Int, _ what: String) throws {
        guard position >= 0, length >= 0, position <= size, length <= size - position else {
            throw FlatBufferError.outOfBounds(what: what, offset: absolute(position), length: length, bufferSize: size)
        }
    }

    /// Loads a little-endian integer at `position`.
    @inline(__always) package func load<T: FixedWidthInteger>(_ type: T.Type, at position: Int, what: String = "scalar") throws -> T {
        try check(position, MemoryLayout<T>.size, what)
        guard let base else { throw FlatBufferError.bufferTooSmall(size: 0, needed: MemoryLayout<T>.size) }
        return T(littleEndian: base.loadUnaligned(fromByteOffset: position, as: T.self))
    }

    /// Loads a little-endian `Float` at `position`.
    @inline(__always) package func loadFloat(at position: Int, what: String = "float") throws -> Float {
        Float(bitPattern: try load(UInt32.self, at: position, what: what))
    }

    /// Loads a little-endian `Double` at `position`.
    @inline(__always) package func loadDouble(at position: Int, what: String = "double") throws -> Double {
        Double(bitPattern: try load(UInt64.self, at: position, what: what))
    }

    /// Follows the unsigned 32-bit offset stored at `position`; returns the checked target position.
    func offsetTarget(at position: Int, what: String) throws -> Int {
        let delta = try load(UInt32.self, at: position, what: what)
        let (target, overflow) = position.addingReportingOverflow(Int(delta))
        guard !overflow, target >= 0, target < size else {
            throw FlatBufferError.outOfBounds(what: "target of \(what)", offset: absolute(position), length: Int(delta), bufferSize: size)
        }
        return target
    }

    /// The table starting at `position` (its vtable is validated here).
    package func table(at position: Int) throws -> FlatBufferTable {
        try work.charge(1)
        let vtableDelta = try load(Int32.self, at: position, what: "table vtable offset")
        let (vtable, overflow) = position.subtractingReportingOverflow(Int(vtableDelta))
        guard !overflow, vtable >= 0, vtable <= size - 4 else {
            throw FlatBufferError.invalidVTable(tableOffset: absolute(position), reason: "vtable offset \(vtableDelta) leaves the buffer")
        }
        let vtableSize = Int(try load(UInt16.self, at: vtable, what: "vtable size"))
        let inlineSize = Int(try load(UInt16.self, at: vtable + 2, what: "table size"))
        guard vtableSize >= 4, vtableSize % 2 == 0 else {
            throw FlatBufferError.invalidVTable(tableOffset: absolute(position), reason: "vtable size \(vtableSize) is not an even number >= 4")
        }
        try check(vtable, vtableSize, "vtable")
        guard inlineSize >= 4 else {
            throw FlatBufferError.invalidVTable(tableOffset: absolute(position), reason: "table size \(inlineSize) is below 4")
        }
        try check(position, inlineSize, "table")
        return FlatBufferTable(buffer: self, position: position, vtable: vtable, vtableSize: vtableSize, inlineSize: inlineSize)
    }

    /// The vector whose length prefix is at `position`.
    package func vector(at position: Int, elementSize: Int, what: String) throws -> FlatBufferVector {
        // The in-bounds length is read directly: the error's "… length" text is built only when
        // `load` is about to throw (string building was a tenth of a small model's parse).
        let count: Int
        if position >= 0, size >= 4, position <= size - 4, let base {
            count = Int(UInt32(littleEndian: base.loadUnaligned(fromByteOffset: position, as: UInt32.self)))
        } else {
            count = Int(try load(UInt32.self, at: position, what: "\(what) length"))
        }
        let (bytes, overflow) = count.multipliedReportingOverflow(by: elementSize)
        guard !overflow else {
            throw FlatBufferError.outOfBounds(what: what, offset: absolute(position + 4), length: Int.max, bufferSize: size)
        }
        try check(position + 4, bytes, what)
        return FlatBufferVector(buffer: self, start: position + 4, count: count, elementSize: elementSize)
    }

    /// The string whose length prefix is at `position` (invalid UTF-8 is repaired, never fatal).
    package func string(at position: Int, what: String) throws -> String {
        let v = try vector(at: position, elementSize: 1, what: what)
        try work.charge(v.count)
        guard let base, v.count > 0 else { return "" }
        let bytes = UnsafeRawBufferPointer(start: base + v.start, count: v.count)
        return String(decoding: bytes, as: UTF8.self)
    }
}
