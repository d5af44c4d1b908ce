/// Builds length-limited Huffman codes for the DEFLATE compressor.
enum HuffmanEncoder {
    /// Code lengths (0 for unused symbols) of a Huffman code for `frequencies`, no code longer
    /// than `limit` bits. At least two symbols get codes (as zlib does), so every code is complete.
    static func codeLengths(_ frequencies: [Int], limit: Int) -> [UInt8] {
        var freqs = frequencies
        var used = freqs.indices.filter { freqs[$0] > 0 }
        // Two codes at least: a one-symbol code would be incomplete.
        var k = 0
        while used.count < 2 && k < freqs.count {
            if freqs[k] == 0 { freqs[k] = 1; used.append(k) }
            k += 1
        }
        used.sort()
        while true {
            let lengths = unlimitedLengths(freqs, used)
            if (lengths.max() ?? 0) <= limit { return lengths }
            // Flatten the distribution and try again; converges fast and keeps every symbol.
            for s in used { freqs[s] = (freqs[s] + 1) / 2 }
        }
    }

    /// Plain Huffman: repeatedly merge the two lightest nodes; a leaf's depth is its length.
    private static func unlimitedLengths(_ freqs: [Int], _ used: [Int]) -> [UInt8] {
        let leafCount = used.count
        var weight = used.map { freqs[$0] }
        var parent = [Int](repeating: -1, count: 2 * leafCount - 1)
        // Binary min-heap of node indices ordered by weight (ties: lower index first).
        var heap = Array(0..<leafCount)
        func less(_ a: Int, _ b: Int) -> Bool { weight[a] != weight[b] ? weight[a] < weight[b] : a < b }
        func siftDown(_ start: Int) {
            var i = start
            while true {
                let l = 2 * i + 1, r = l + 1
                var m = i
                if l < heap.count && less(heap[l], heap[m]) { m = l }
                if r < heap.count && less(heap[r], heap[m]) { m = r }
                if m == i { return }
                heap.swapAt(i, m)
                i = m
            }
        }
        func siftUp(_ start: Int) {
            var i = start
            while i > 0 {
                let p = (i - 1) / 2
                if !less(heap[i], heap[p]) { return }
                heap.swapAt(i, p)
                i = p
            }
        }
        func pop() -> Int {
            let top = heap[0]
            heap[0] = heap[heap.count - 1]
            heap.removeLast()
            if !heap.isEmpty { siftDown(0) }
            return top
        }
        for i in stride(from: heap.count / 2, through: 0, by: -1) { siftDown(i) }
        while heap.count > 1 {
            let a = pop(), b = pop()
            let node = weight.count
            weight.append(weight[a] + weight[b])
            parent[a] = node
            parent[b] = node
            heap.append(node)
            siftUp(heap.count - 1)
        }
        // Parents are created after their children, so walk from the root down.
        var depth = [Int](repeating: 0, count: weight.count)
        for i in stride(from: weight.count - 2, through: 0, by: -1) { depth[i] = depth[parent[i]] + 1 }
        var lengths = [UInt8](repeating: 0, count: freqs.count)
        for (leaf, symbol) in used.enumerated() { lengths[symbol] = UInt8(depth[leaf]) }
        return lengths
    }

    /// Canonical codes for `lengths`, bit-reversed so they can be written least-significant bit first.
    static func reversedCodes(_ lengths: [UInt8]) -> [UInt16] {
        var counts = [Int](repeating: 0, count: 16)
        for l in lengths where l > 0 { counts[Int(l)] += 1 }
        var next = [Int](repeating: 0, count: 16)
        var code = 0
        for len in 1...15 {
            code = (code + counts[len - 1]) << 1
            next[len] = code
        }
        var codes = [UInt16](repeating: 0, count: lengths.count)
        for (s, l) in lengths.enumerated() where l > 0 {
            var c = next[Int(l)]
            next[Int(l)] += 1
            var r = 0
            for _ in 0..<Int(l) { r = (r << 1) | (c & 1); c >>= 1 }
            codes[s] = UInt16(r)
        }
        return codes
    }
}
