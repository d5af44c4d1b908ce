import DetectorZlib
import Foundation
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// The single owner of a model's bytes: either a read-only memory map of a file or one aligned
/// heap allocation. Everything read from a model (tables, vectors, constant tensor data) refers back
/// to these bytes by offset; nothing is copied out of them.
///
/// The bytes never change after creation and are released when the last reference goes away.
///
/// ```swift
/// let storage = try ByteStorage(contentsOfFile: "model.tflite")
/// print(storage.count)
/// ```
package final class ByteStorage: @unchecked Sendable {
    /// The bytes, valid for as long as this object is alive. Start is at least 16-byte aligned.
    package let bytes: UnsafeRawBufferPointer
    private let mappedLength: Int  // > 0: munmap on deinit; 0: deallocate (or nothing when empty)

    /// Number of bytes.
    package var count: Int { bytes.count }

    /// Copies `data` once into a 16-byte aligned allocation (the alignment TFLite buffers assume).
    package init(copying data: Data) {
        let count = data.count
        if count == 0 {
            bytes = UnsafeRawBufferPointer(start: nil, count: 0)
        } else {
            let storage = UnsafeMutableRawBufferPointer.allocate(byteCount: count, alignment: 64)
            _ = data.copyBytes(to: storage.bindMemory(to: UInt8.self))
            bytes = UnsafeRawBufferPointer(storage)
        }
        mappedLength = 0
    }

    /// Copies `bytes` once into an aligned allocation.
    package convenience init(copying bytes: [UInt8]) {
        self.init(copying: Data(bytes))
    }

    /// Maps the file read-only (no copy; pages are loaded on first touch). Falls back to reading
    /// the file into memory where mapping is not possible.
    package init(contentsOfFile path: String) throws {
        let fd = open(path, O_RDONLY)
        guard fd >= 0 else {
            throw ByteStorageError.cannotOpen(path: path, reason: String(cString: strerror(errno)))
        }
        defer { close(fd) }
        var info = stat()
        guard fstat(fd, &info) == 0 else {
            throw ByteStorageError.cannotOpen(path: path, reason: String(cString: strerror(errno)))
        }
        guard (info.st_mode & S_IFMT) == S_IFREG else {
            throw ByteStorageError.cannotOpen(path: path, reason: "not a regular file")
        }
        let size = Int(info.st_size)
        if size == 0 {
            bytes = UnsafeRawBufferPointer(start: nil, count: 0)
            mappedLength = 0
            return
        }
        if let address = mmap(nil, size, PROT_READ, MAP_PRIVATE, fd, 0),
           address != MAP_FAILED {
            bytes = UnsafeRawBufferPointer(start: UnsafeRawPointer(address), count: size)
            mappedLength = size
            return
        }
        // Mapping failed (unusual file system): read it instead.
        let storage = UnsafeMutableRawBufferPointer.allocate(byteCount: size, alignment: 64)
        guard let start = storage.baseAddress else {
            storage.deallocate()
            throw ByteStorageError.cannotOpen(path: path, reason: "could not allocate \(size) bytes")
        }
        var done = 0
        while done < size {
            let n = read(fd, start + done, size - done)
            if n <= 0 {
                storage.deallocate()
                throw ByteStorageError.cannotOpen(path: path, reason: "read failed after \(done) of \(size) bytes")
            }
            done += n
        }
        bytes = UnsafeRawBufferPointer(storage)
        mappedLength = 0
    }

    deinit {
        guard let base = bytes.baseAddress else { return }
        if mappedLength > 0 {
            munmap(UnsafeMutableRawPointer(mutating: base), mappedLength)
        } else {
            UnsafeMutableRawPointer(mutating: base).deallocate()
        }
    }

    /// Lets the system drop the resident pages lying wholly inside `range` when the bytes are a
    /// file mapping (Linux `MADV_DONTNEED`; a later read loads them from the file again, with
    /// the same bytes). Does nothing for bytes held in memory, out-of-bounds ranges or elsewhere.
    /// Example: after prepare has packed a layer's weights, their pages need not stay resident.
    package func releasePages(_ range: ByteRange) {
        #if os(Linux)
        guard mappedLength > 0, range.offset >= 0, range.count > 0, range.offset <= count,
              range.count <= count - range.offset, let base = bytes.baseAddress else { return }
        let page = Int(sysconf(Int32(_SC_PAGESIZE)))
        guard page > 0 else { return }
        let first = UInt(bitPattern: base + range.offset), last = UInt(bitPattern: base + range.offset + range.count)
        let start = (first + UInt(page) - 1) / UInt(page) * UInt(page), end = last / UInt(page) * UInt(page)
        guard end > start, let address = UnsafeMutableRawPointer(bitPattern: start) else { return }
        _ = madvise(address, Int(end - start), MADV_DONTNEED)
        #endif
    }

    /// A view of `range` (offset/count into these bytes); empty when the range is out of bounds.
    package func slice(_ range: ByteRange) -> UnsafeRawBufferPointer {
        guard range.offset >= 0, range.count >= 0, range.offset <= count, range.count <= count - range.offset,
              let base = bytes.baseAddress else {
            return UnsafeRawBufferPointer(start: nil, count: 0)
        }
        return UnsafeRawBufferPointer(start: base + range.offset, count: range.count)
    }

    /// A copy of `range` as `Data` (for the rare caller that needs to own bytes).
    package func data(_ range: ByteRange) -> Data {
        Data(slice(range))
    }
}

/// A byte range inside a `ByteStorage`: `offset` from the start of the file and `count` bytes.
public struct ByteRange: Hashable, Sendable, CustomStringConvertible {
    public let offset: Int
    public let count: Int
    public init(offset: Int, count: Int) {
        self.offset = offset
        self.count = count
    }
    public var description: String { "[\(offset), +\(count))" }
}

/// Why a file could not be opened as a `ByteStorage`.
package enum ByteStorageError: Error, CustomStringConvertible, Equatable, Sendable {
    case cannotOpen(path: String, reason: String)

    package var description: String {
        switch self {
        case let .cannotOpen(path, reason): return "cannot open '\(path)': \(reason)"
        }
    }
}
