import DetectorModelFile
import DetectorPlatform
/// Places tensors in one arena by lifetime: tensors alive at the same time never overlap,
/// others share memory. Greedy by size (largest first), lowest fitting offset, like the
/// official runtime's simple arena planner.
struct ArenaPlanner {
    /// A tensor to place: its byte size and the first and last op (inclusive) it is alive at.
    struct Request {
        let tensor: Int
        let byteCount: Int
        let firstUse: Int
        let lastUse: Int
    }

    static let alignment = 64

    /// A placed request: its bytes and its lifetime (a struct, not a tuple: a tuple type's
    /// metadata is built at run time the first time a process uses it).
    private struct Placement {
        let offset: Int, end: Int, first: Int, last: Int
    }

    /// Offsets per request (same order) and the total arena size; nil on overflow.
    static func plan(_ requests: [Request]) -> (offsets: [Int], size: Int)? {
        var order = Array(requests.indices)
        order.sort { a, b in
            let ra = requests[a], rb = requests[b]
            if ra.byteCount != rb.byteCount { return ra.byteCount > rb.byteCount }
            return ra.firstUse < rb.firstUse
        }
        var offsets = [Int](repeating: 0, count: requests.count)
        var placed: [Placement] = []
        var total = 0
        for i in order {
            let r = requests[i]
            let (padded, o1) = r.byteCount.addingReportingOverflow(alignment - 1)
            guard !o1 else { return nil }
            let size = padded / alignment * alignment
            let overlapping = placed.filter { $0.first <= r.lastUse && r.firstUse <= $0.last }
                .sorted { $0.offset < $1.offset }
            var candidate = 0
            for p in overlapping {
                if candidate + size <= p.offset { break }
                candidate = max(candidate, p.end)
            }
            let (end, o2) = candidate.addingReportingOverflow(size)
            guard !o2 else { return nil }
            offsets[i] = candidate
            placed.append(Placement(offset: candidate, end: end, first: r.firstUse, last: r.lastUse))
            total = max(total, end)
        }
        return (offsets, total)
    }
}
