/// Where the stored values of a TFLite sparse tensor go in its dense form.
///
/// TFLite's sparsity metadata describes the tensor as `n + k` levels: the `n` dense dimensions
/// (a blocked dimension counts its blocks) and `k` block dimensions, the inner index within a
/// block of dimension `blockMap[j]`, whose size is the dense size of its level. `traversalOrder`
/// says which of those dimensions each level walks; each level is DENSE (every index from 0 to its
/// size) or SPARSE_CSR (for the parent's position `p`, the indices `indices[segments[p] ..<
/// segments[p + 1]]`). A DENSE level's position is `parent * size + index`, a CSR level's the
/// offset into `indices`; the values are stored in the order the walk reaches its last level.
///
/// `init` checks the metadata against the dense shape and walks it once, so that a bad index,
/// a segment list that runs backwards or outside its indices, or more positions than stored
/// values give a `SparseTensorLayout.Failure` and never a trap; `scatter` then repeats the walk
/// copying values, which cannot fail.
package struct SparseTensorLayout: Sendable {
    /// Why sparsity metadata does not describe a tensor of the given shape (one sentence).
    package struct Failure: Error, Equatable, CustomStringConvertible {
        package let description: String
    }

    /// One level of the walk.
    struct Level: Sendable {
        /// Indices walked at this level are below `limit`.
        let limit: Int
        /// Distance in dense elements between consecutive indices of this level.
        let stride: Int
        /// nil: DENSE with `size` indices.
        let csr: (segments: [Int], indices: [Int])?
        let size: Int
    }

    let levels: [Level]
    /// Element count of the dense tensor.
    package let denseCount: Int
    /// Values the walk reaches (each one stored value, in storage order).
    package private(set) var valueCount = 0

    /// Checks `sparsity` against the dense `shape` and counts the values it places; fails when
    /// the metadata is inconsistent or places more than `storedCount` values.
    package init(shape: [Int], sparsity: GraphTensor.Sparsity, storedCount: Int) throws(Failure) {
        let n = shape.count, k = sparsity.blockMap.count, total = n + k
        func fail(_ reason: String) -> Failure { Failure(description: reason) }
        guard let count = Shape.elementCount(shape) else { throw fail("the dense shape \(shape) is invalid") }
        guard n > 0 else { throw fail("a scalar cannot be stored sparse") }
        denseCount = count
        guard sparsity.traversalOrder.count == total, sparsity.dimensions.count == total else {
            throw fail("a rank-\(n) tensor with \(k) block dimensions needs \(total) levels, " +
                       "the metadata has \(sparsity.traversalOrder.count) in the traversal order and \(sparsity.dimensions.count) dimensions")
        }
        guard Set(sparsity.traversalOrder) == Set(0..<total) else {
            throw fail("traversal order \(sparsity.traversalOrder) is not a permutation of 0..<\(total)")
        }
        guard sparsity.blockMap.allSatisfy({ $0 >= 0 && $0 < n }), Set(sparsity.blockMap).count == k else {
            throw fail("block map \(sparsity.blockMap) does not name distinct dimensions below \(n)")
        }
        // Block sizes: the dense size of each block dimension's level.
        var blockSize = [Int](repeating: 1, count: k)
        for (level, d) in sparsity.traversalOrder.enumerated() where d >= n {
            guard case .dense(let s) = sparsity.dimensions[level], s > 0 else {
                throw fail("block dimension \(d) must be DENSE with a positive size")
            }
            blockSize[d - n] = s
        }
        let strides = Shape.strides(shape)
        var levels: [Level] = []
        for (level, d) in sparsity.traversalOrder.enumerated() {
            let limit: Int, stride: Int
            if d >= n {
                let original = sparsity.blockMap[d - n]
                limit = blockSize[d - n]; stride = strides[original]
                guard shape[original] % limit == 0 else {
                    throw fail("dimension \(original) of size \(shape[original]) is not a multiple of its block size \(limit)")
                }
            } else if let j = sparsity.blockMap.firstIndex(of: d) {
                limit = shape[d] / blockSize[j]; stride = strides[d] * blockSize[j]
            } else {
                limit = shape[d]; stride = strides[d]
            }
            switch sparsity.dimensions[level] {
            case .dense(let s):
                guard s >= 0, s <= limit else { throw fail("level \(level) is DENSE with size \(s), outside 0...\(limit)") }
                levels.append(Level(limit: limit, stride: stride, csr: nil, size: s))
            case .sparseCSR(let segments, let indices):
                if let bad = indices.first(where: { $0 < 0 || $0 >= limit }) {
                    throw fail("level \(level) has index \(bad), outside 0..<\(limit)")
                }
                levels.append(Level(limit: limit, stride: stride, csr: (segments, indices), size: 0))
            }
        }
        self.levels = levels
        var placed = 0
        try walk(level: 0, position: 0, offset: 0) { _, range throws(Failure) in
            placed += range.count
            guard placed <= storedCount else { throw fail("the metadata places more values than the \(storedCount) stored") }
        }
        valueCount = placed
    }

    /// Walks the levels in storage order and hands each run of the last level to `run`: the
    /// dense offset of the run's parent and the run's range (DENSE: `0..<size`; CSR: a range of
    /// the level's `indices`).
    private func walk(level l: Int, position: Int, offset: Int, _ run: (Int, Range<Int>) throws(Failure) -> Void) throws(Failure) {
        let level = levels[l]
        let isLast = l == levels.count - 1
        if let (segments, indices) = level.csr {
            guard position >= 0, position + 1 < segments.count else {
                throw Failure(description: "level \(l) has \(segments.count) segment bounds, too few for position \(position)")
            }
            let start = segments[position], end = segments[position + 1]
            guard start >= 0, start <= end, end <= indices.count else {
                throw Failure(description: "level \(l) segment \(position) runs from \(start) to \(end), not an increasing range within its \(indices.count) indices")
            }
            if isLast { try run(offset, start..<end); return }
            for i in start..<end {
                try walk(level: l + 1, position: i, offset: offset + indices[i] * level.stride, run)
            }
        } else {
            if isLast { try run(offset, 0..<level.size); return }
            let (base, overflow) = position.multipliedReportingOverflow(by: level.size)
            guard !overflow else { throw Failure(description: "level \(l) positions overflow") }
            for i in 0..<level.size {
                try walk(level: l + 1, position: base &+ i, offset: offset + i * level.stride, run)
            }
        }
    }

    /// Writes the dense tensor: zeros, then each of the first `valueCount` values of `source`
    /// (elements of `elementSize` bytes) at its place in `destination` (`denseCount` elements).
    package func scatter(from source: UnsafeRawPointer, to destination: UnsafeMutableRawPointer, elementSize: Int) {
        destination.initializeMemory(as: UInt8.self, repeating: 0, count: denseCount * elementSize)
        switch elementSize {
        case 4: scatter(UInt32.self, from: source, to: destination)
        case 2: scatter(UInt16.self, from: source, to: destination)
        case 1: scatter(UInt8.self, from: source, to: destination)
        case 8: scatter(UInt64.self, from: source, to: destination)
        default:
            var v = 0
            let last = levels[levels.count - 1]
            try? walk(level: 0, position: 0, offset: 0) { offset, range throws(Failure) in
                for i in range {
                    let at = offset + (last.csr.map { $0.indices[i] } ?? i) * last.stride
                    (destination + at * elementSize).copyMemory(from: source + v * elementSize, byteCount: elementSize)
                    v += 1
                }
            }
        }
    }

    private func scatter<T>(_: T.Type, from source: UnsafeRawPointer, to destination: UnsafeMutableRawPointer) {
        let size = MemoryLayout<T>.size
        let last = levels[levels.count - 1]
        var v = 0
        // The walk cannot fail: init made the same walk.
        try? walk(level: 0, position: 0, offset: 0) { offset, range throws(Failure) in
            if let (_, indices) = last.csr {
                for i in range {
                    destination.storeBytes(of: source.loadUnaligned(fromByteOffset: v * size, as: T.self),
                                           toByteOffset: (offset + indices[i] * last.stride) * size, as: T.self)
                    v += 1
                }
            } else if last.stride == 1 {
                (destination + offset * size).copyMemory(from: source + v * size, byteCount: range.count * size)
                v += range.count
            } else {
                for i in range {
                    destination.storeBytes(of: source.loadUnaligned(fromByteOffset: v * size, as: T.self),
                                           toByteOffset: (offset + i * last.stride) * size, as: T.self)
                    v += 1
                }
            }
        }
    }
}
