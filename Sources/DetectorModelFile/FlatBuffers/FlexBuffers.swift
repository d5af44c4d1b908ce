import DetectorZlib
/// A decoded FlexBuffers value (the self-describing format TFLite uses for custom operator options).
package enum FlexValue: Sendable, Equatable {
    case null
    case int(Int64)
    case uint(UInt64)
    case float(Double)
    case bool(Bool)
    case key(String)
    case string(String)
    case blob([UInt8])
    case vector([FlexValue])
    case map([String: FlexValue])

    /// The value under `key` when this is a map.
    package subscript(key: String) -> FlexValue? {
        if case let .map(m) = self { return m[key] }
        return nil
    }

    /// Numbers and bools as an integer (floats are truncated toward zero; nil when out of range).
    package var intValue: Int64? {
        switch self {
        case let .int(v): return v
        case let .uint(v): return v <= UInt64(Int64.max) ? Int64(v) : nil
        case let .float(v): return v.isFinite && abs(v) < 9.2e18 ? Int64(v) : nil
        case let .bool(b): return b ? 1 : 0
        default: return nil
        }
    }

    /// Numbers and bools as a double.
    package var doubleValue: Double? {
        switch self {
        case let .int(v): return Double(v)
        case let .uint(v): return Double(v)
        case let .float(v): return v
        case let .bool(b): return b ? 1 : 0
        default: return nil
        }
    }

    /// Bools, and numbers as "non-zero".
    package var boolValue: Bool? {
        switch self {
        case let .bool(b): return b
        case let .int(v): return v != 0
        case let .uint(v): return v != 0
        case let .float(v): return v != 0
        default: return nil
        }
    }

    /// Strings and keys.
    package var stringValue: String? {
        switch self {
        case let .string(s), let .key(s): return s
        default: return nil
        }
    }

    package var isNull: Bool { self == .null }
}

/// A bounds-checked FlexBuffers decoder. Every offset is checked against the buffer; nesting and
/// the total number of decoded elements are limited, so hostile input ends in a `FlatBufferError`.
///
/// ```swift
/// let options = try FlexBuffers.decode(model.customOptionsBytes(of: op))
/// let maxDetections = options["max_detections"]?.intValue
/// ```
package enum FlexBuffers {
    /// Value types of the FlexBuffers format.
    enum FlexType: Int {
        case null = 0, int = 1, uint = 2, float = 3, key = 4, string = 5
        case indirectInt = 6, indirectUInt = 7, indirectFloat = 8
        case map = 9, vector = 10, vectorInt = 11, vectorUInt = 12, vectorFloat = 13, vectorKey = 14
        case vectorStringDeprecated = 15
        case vectorInt2 = 16, vectorUInt2 = 17, vectorFloat2 = 18
        case vectorInt3 = 19, vectorUInt3 = 20, vectorFloat3 = 21
        case vectorInt4 = 22, vectorUInt4 = 23, vectorFloat4 = 24
        case blob = 25, bool = 26, vectorBool = 36
    }

    /// Decodes the whole buffer (its root value). `maxElements` bounds the values decoded in all,
    /// shared vectors counted each time they are reached: 2^18 is far above any custom op's
    /// options (a few dozen values), and keeps a hostile 369-byte DAG of shared vectors at about
    /// 90 ms in the fuzzer's ASan build (350 ms at 2^20).
    package static func decode(_ bytes: UnsafeRawBufferPointer, maxDepth: Int = 32, maxElements: Int = 1 << 18) throws -> FlexValue {
        var reader = Reader(bytes: bytes, maxDepth: maxDepth, remaining: maxElements, limit: maxElements)
        return try reader.root()
    }

    /// Decodes a copy held in an array (convenience for tests and small buffers).
    package static func decode(_ bytes: [UInt8]) throws -> FlexValue {
        try bytes.withUnsafeBytes { try decode($0) }
    }

    struct Reader {
        let bytes: UnsafeRawBufferPointer
        let maxDepth: Int
        var remaining: Int
        let limit: Int

        var size: Int { bytes.count }

        func check(_ position: Int, _ length: Int, _ what: String) throws {
            guard position >= 0, length >= 0, position <= size, length <= size - position else {
                throw FlatBufferError.outOfBounds(what: "FlexBuffers \(what)", offset: position, length: length, bufferSize: size)
            }
        }

        mutating func charge(_ n: Int) throws {
            guard n <= remaining else { throw FlatBufferError.workLimitExceeded(limit: limit) }
            remaining -= n
        }

        /// Reads an unsigned integer of `width` bytes (1, 2, 4, 8).
        func readUInt(_ position: Int, _ width: Int) throws -> UInt64 {
            try check(position, width, "value")
            switch width {
            case 1: return UInt64(bytes.load(fromByteOffset: position, as: UInt8.self))
            case 2: return UInt64(UInt16(littleEndian: bytes.loadUnaligned(fromByteOffset: position, as: UInt16.self)))
            case 4: return UInt64(UInt32(littleEndian: bytes.loadUnaligned(fromByteOffset: position, as: UInt32.self)))
            case 8: return UInt64(littleEndian: bytes.loadUnaligned(fromByteOffset: position, as: UInt64.self))
            default: throw FlatBufferError.invalidValue(what: "FlexBuffers byte width", offset: position, reason: "\(width) is not 1, 2, 4 or 8")
            }
        }

        func readInt(_ position: Int, _ width: Int) throws -> Int64 {
            let u = try readUInt(position, width)
            switch width {
            case 1: return Int64(Int8(truncatingIfNeeded: u))
            case 2: return Int64(Int16(truncatingIfNeeded: u))
            case 4: return Int64(Int32(truncatingIfNeeded: u))
            default: return Int64(bitPattern: u)
            }
        }

        func readFloat(_ position: Int, _ width: Int) throws -> Double {
            switch width {
            case 4: return Double(Float(bitPattern: UInt32(truncatingIfNeeded: try readUInt(position, 4))))
            case 8: return Double(bitPattern: try readUInt(position, 8))
            default: throw FlatBufferError.invalidValue(what: "FlexBuffers float width", offset: position, reason: "\(width) is not 4 or 8")
            }
        }

        /// Follows the backward offset stored at `position` (width `width`).
        func indirect(_ position: Int, _ width: Int) throws -> Int {
            let offset = try readUInt(position, width)
            guard offset <= UInt64(position) else {
                throw FlatBufferError.outOfBounds(what: "FlexBuffers offset target", offset: position, length: Int(clamping: offset), bufferSize: size)
            }
            return position - Int(offset)
        }

        mutating func root() throws -> FlexValue {
            guard size >= 3 else { throw FlatBufferError.bufferTooSmall(size: size, needed: 3) }
            let rootWidth = Int(bytes[size - 1])
            let packed = Int(bytes[size - 2])
            guard [1, 2, 4, 8].contains(rootWidth), rootWidth <= size - 2 else {
                throw FlatBufferError.invalidValue(what: "FlexBuffers root width", offset: size - 1, reason: "\(rootWidth) is not a valid width here")
            }
            return try value(at: size - 2 - rootWidth, parentWidth: rootWidth, packedType: packed, depth: 0)
        }

        /// The value whose slot is at `position` (slot width `parentWidth`) with the given packed type.
        mutating func value(at position: Int, parentWidth: Int, packedType: Int, depth: Int) throws -> FlexValue {
            guard depth <= maxDepth else { throw FlatBufferError.tooDeep(limit: maxDepth, offset: position) }
            try charge(1)
            let width = 1 << (packedType & 3)
            guard let type = FlexType(rawValue: packedType >> 2) else {
                throw FlatBufferError.invalidValue(what: "FlexBuffers type", offset: position, reason: "\(packedType >> 2) is not a known type")
            }
            switch type {
            case .null: return .null
            case .int: return .int(try readInt(position, parentWidth))
            case .uint: return .uint(try readUInt(position, parentWidth))
            case .float: return .float(try readFloat(position, parentWidth))
            case .bool: return .bool(try readUInt(position, parentWidth) != 0)
            case .indirectInt: return .int(try readInt(try indirect(position, parentWidth), width))
            case .indirectUInt: return .uint(try readUInt(try indirect(position, parentWidth), width))
            case .indirectFloat: return .float(try readFloat(try indirect(position, parentWidth), width))
            case .key: return .key(try key(at: try indirect(position, parentWidth)))
            case .string:
                let start = try indirect(position, parentWidth)
                let n = try count(before: start, width: width)
                try check(start, n, "string")
                try charge(n)
                return .string(String(decoding: UnsafeRawBufferPointer(rebasing: bytes[start..<(start + n)]), as: UTF8.self))
            case .blob:
                let start = try indirect(position, parentWidth)
                let n = try count(before: start, width: width)
                try check(start, n, "blob")
                try charge(n)
                return .blob(Array(bytes[start..<(start + n)]))
            case .vector:
                let start = try indirect(position, parentWidth)
                let n = try count(before: start, width: width)
                return .vector(try untypedElements(start: start, count: n, width: width, depth: depth))
            case .map:
                let start = try indirect(position, parentWidth)
                let n = try count(before: start, width: width)
                let values = try untypedElements(start: start, count: n, width: width, depth: depth)
                // Before the size: the keys vector's byte width, and before that its offset.
                guard start >= 3 * width else {
                    throw FlatBufferError.outOfBounds(what: "FlexBuffers map header", offset: start, length: 3 * width, bufferSize: size)
                }
                // Checked as stored (UInt64): a huge value must not reach an `Int` conversion.
                let storedKeysWidth = try readUInt(start - 2 * width, width)
                guard [1, 2, 4, 8].contains(storedKeysWidth) else {
                    throw FlatBufferError.invalidValue(what: "FlexBuffers map keys width", offset: start - 2 * width, reason: "\(storedKeysWidth) is not 1, 2, 4 or 8")
                }
                let keysWidth = Int(storedKeysWidth)
                let keysStart = try indirect(start - 3 * width, width)
                let keyCount = try count(before: keysStart, width: keysWidth)
                guard keyCount == n else {
                    throw FlatBufferError.invalidValue(what: "FlexBuffers map", offset: start, reason: "has \(n) values but \(keyCount) keys")
                }
                var result: [String: FlexValue] = [:]
                for i in 0..<n {
                    let k = try key(at: try indirect(keysStart + i * keysWidth, keysWidth))
                    result[k] = values[i]
                }
                return .map(result)
            case .vectorInt, .vectorUInt, .vectorFloat, .vectorKey, .vectorStringDeprecated, .vectorBool:
                let start = try indirect(position, parentWidth)
                let n = try count(before: start, width: width)
                return .vector(try typedElements(start: start, count: n, width: width, type: type, depth: depth))
            case .vectorInt2, .vectorUInt2, .vectorFloat2, .vectorInt3, .vectorUInt3, .vectorFloat3,
                 .vectorInt4, .vectorUInt4, .vectorFloat4:
                let start = try indirect(position, parentWidth)
                let raw = type.rawValue - FlexType.vectorInt2.rawValue
                let n = raw / 3 + 2
                let elementType: FlexType = [.vectorInt, .vectorUInt, .vectorFloat][raw % 3]
                return .vector(try typedElements(start: start, count: n, width: width, type: elementType, depth: depth))
            }
        }

        /// The element count stored just before `start` in `width` bytes.
        func count(before start: Int, width: Int) throws -> Int {
            guard start >= width else {
                throw FlatBufferError.outOfBounds(what: "FlexBuffers length", offset: start - width, length: width, bufferSize: size)
            }
            let n = try readUInt(start - width, width)
            guard n <= UInt64(size) else {
                throw FlatBufferError.outOfBounds(what: "FlexBuffers container", offset: start, length: Int(clamping: n), bufferSize: size)
            }
            return Int(n)
        }

        mutating func key(at start: Int) throws -> String {
            try check(start, 0, "key")
            var end = start
            while end < size, bytes[end] != 0 { end += 1 }
            guard end < size else {
                throw FlatBufferError.invalidValue(what: "FlexBuffers key", offset: start, reason: "has no terminating zero")
            }
            try charge(end - start)
            return String(decoding: UnsafeRawBufferPointer(rebasing: bytes[start..<end]), as: UTF8.self)
        }

        mutating func untypedElements(start: Int, count n: Int, width: Int, depth: Int) throws -> [FlexValue] {
            let (bytesNeeded, o1) = n.multipliedReportingOverflow(by: width)
            guard !o1 else { throw FlatBufferError.outOfBounds(what: "FlexBuffers vector", offset: start, length: Int.max, bufferSize: size) }
            try check(start, bytesNeeded, "vector")
            try check(start + bytesNeeded, n, "vector types")
            try charge(n)
            var out: [FlexValue] = []
            out.reserveCapacity(n)
            for i in 0..<n {
                let packed = Int(bytes[start + bytesNeeded + i])
                out.append(try value(at: start + i * width, parentWidth: width, packedType: packed, depth: depth + 1))
            }
            return out
        }

        mutating func typedElements(start: Int, count n: Int, width: Int, type: FlexType, depth: Int) throws -> [FlexValue] {
            let (bytesNeeded, o1) = n.multipliedReportingOverflow(by: width)
            guard !o1 else { throw FlatBufferError.outOfBounds(what: "FlexBuffers vector", offset: start, length: Int.max, bufferSize: size) }
            try check(start, bytesNeeded, "typed vector")
            try charge(n)
            var out: [FlexValue] = []
            out.reserveCapacity(n)
            for i in 0..<n {
                let p = start + i * width
                switch type {
                case .vectorInt: out.append(.int(try readInt(p, width)))
                case .vectorUInt: out.append(.uint(try readUInt(p, width)))
                case .vectorFloat: out.append(.float(try readFloat(p, width)))
                case .vectorBool: out.append(.bool(try readUInt(p, width) != 0))
                case .vectorKey: out.append(.key(try key(at: try indirect(p, width))))
                default:
                    // Deprecated vector of strings: elements are string offsets with a size prefix.
                    let s = try indirect(p, width)
                    let len = try count(before: s, width: width)
                    try check(s, len, "string")
                    out.append(.string(String(decoding: UnsafeRawBufferPointer(rebasing: bytes[s..<(s + len)]), as: UTF8.self)))
                }
            }
            return out
        }
    }
}
