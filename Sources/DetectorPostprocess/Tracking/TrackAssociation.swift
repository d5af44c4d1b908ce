import DetectorModelFile
import DetectorImage
extension IoUTracker {
    /// Optimal matching of every track (by its predicted box) and the given detections; fills
    /// `matchedTrack` and `trackOfDetection`.
    ///
    /// A pair is admissible when its IoU reaches `iouThreshold`, the classes agree (when
    /// class-aware), a low-score detection (`isLow`) meets a confirmed track matched in the
    /// previous update with IoU ≥ `lowScoreIoUThreshold` (any track, at `iouThreshold`, with
    /// `reportsFromFirstFrame`) and, for a track
    /// that missed updates, the detection's centre is inside the re-acquisition gate and its
    /// height within `reacquisitionHeightRatio` of the predicted one, and (with `ground`) the
    /// detection's foot point is inside the track's ground-plane gate. Its
    /// weight is `IoU − centreDistanceWeight · d²/c² − footDistanceWeight · f²/h²` (d: distance
    /// of the centres, c: diagonal of the box enclosing both, f: distance of the bottom-centre
    /// points, h: the predicted box's height), times `lowScoreWeight` for a low-score detection, so a
    /// high-score detection wins a close call. Other pairs are worth nothing, so the
    /// maximum-weight matching splits into independent groups of tracks and detections linked
    /// by admissible pairs. Each group is solved on its own (most are a single pair and need no
    /// solver), and memory grows with the admissible pairs and group sizes, not with
    /// tracks × detections.
    func associate(
        detectionIndices: [Int], detections: [TrackerDetection], isLow: [Bool], scoreScale: Float,
        ground: GroundContext?, groundPoints: [GroundPoint?], matchedTrack: inout [Bool], trackOfDetection: inout [Int?]
    ) {
        let rows = tracks.count, columns = detectionIndices.count
        guard rows > 0, columns > 0 else { return }
        let threshold = configuration.iouThreshold
        var predicted: [TrackBox] = []
        predicted.reserveCapacity(rows)
        for r in 0..<rows { predicted.append(tracks[r].motion.box) }
        var candidates: [TrackBox] = []
        candidates.reserveCapacity(columns)
        for d in detectionIndices { candidates.append(detections[d].box) }
        let groundGate = Double(ground?.settings.gate ?? .infinity)
        // Squared gate radius of each track in pixels (infinite: no gate).
        var gateRadiusSquared = [Float](repeating: .infinity, count: rows)
        if let gate = configuration.reacquisitionGate {
            for r in 0..<rows where tracks[r].missedUpdates > 0 {
                let secondsLost = Float(max(0, nowMs - tracks[r].lastMatchMs) / 1_000)
                let radius = predicted[r].height * (gate + configuration.reacquisitionGrowth * secondsLost)
                gateRadiusSquared[r] = radius * radius
            }
        }
        let centreWeight = configuration.centreDistanceWeight, lowWeight = configuration.lowScoreWeight
        let footWeight = configuration.footDistanceWeight ?? 0
        let heightRatio = configuration.reacquisitionHeightRatio
        // With ML Kit's reporting every detection may start a track, so a low-score one must be
        // able to continue any track it could have started (else it would start a duplicate):
        // it then matches like a high-score one, only at `lowScoreWeight`.
        let lowMatchesAnyTrack = configuration.reportsFromFirstFrame
        let lowThreshold = lowMatchesAnyTrack ? threshold : configuration.lowScoreIoUThreshold
        let scoreWeighted = configuration.scoreWeightedMatching

        // Detections sorted by left edge: a track only visits those whose left edge lies in
        // (track left − widest detection, track right), so the scan is not tracks × detections.
        // Their edges are kept in that order (padded with NaN, which overlaps nothing) so eight
        // at a time are tested for overlap with a track before any is looked at one by one.
        let byLeft = Self.orderByLeftEdge(candidates)
        let stride = columns + Self.overlapLanes
        let edges = UnsafeMutableBufferPointer<Float>.allocate(capacity: 4 * stride)
        defer { edges.deallocate() }
        guard let lefts = edges.baseAddress else { return }
        edges.initialize(repeating: .nan)
        let tops = lefts + stride, rights = tops + stride, bottoms = rights + stride
        for (k, c) in byLeft.enumerated() {
            let box = candidates[c]
            lefts[k] = box.x
            tops[k] = box.y
            rights[k] = box.x + box.width
            bottoms[k] = box.y + box.height
        }
        let sortedLefts = UnsafeBufferPointer(start: lefts, count: columns)
        let widest = candidates.reduce(Float(0)) { max($0, $1.width) }
        var lowColumn = [Bool](repeating: false, count: columns)
        for c in 0..<columns { lowColumn[c] = isLow[detectionIndices[c]] }

        var pairs: [(row: Int, column: Int, weight: Float)] = []
        for r in 0..<rows {
            let track = predicted[r]
            let trackRight = track.x + track.width, trackBottom = track.y + track.height
            let gate = gateRadiusSquared[r]
            let tentative = tracks[r].id == nil
            let lost = tracks[r].missedUpdates > 0
            let skipsLow = !lowMatchesAnyTrack && (tentative || lost)
            var k = Self.firstIndex(in: sortedLefts, above: track.x - widest)
            while k < columns, sortedLefts[k] < trackRight {
                let chunk = k
                k += Self.overlapLanes
                // Which of the next boxes overlap the track's (the same tests as one by one:
                // left edge before the track's right, right edge after its left, and so on).
                var overlapping = Self.overlapBits(
                    lefts: lefts, tops: tops, rights: rights, bottoms: bottoms, at: chunk,
                    left: track.x, top: track.y, right: trackRight, bottom: trackBottom)
                while overlapping != 0 {
                    let offset = overlapping.trailingZeroBitCount
                    overlapping &= overlapping - 1
                    guard chunk + offset < columns else { break }
                    let c = byLeft[chunk + offset]
                    let candidate = candidates[c]
                    let low = lowColumn[c]
                    if low && skipsLow { continue }
                    let iou = track.iou(candidate)
                    guard iou >= threshold, !low || iou >= lowThreshold else { continue }
                    if lost, let ratio = heightRatio {
                        let last = tracks[r].lastDetection.height
                        if candidate.height > track.height * ratio || track.height > candidate.height * ratio
                            || candidate.height > last * ratio || last > candidate.height * ratio { continue }
                    }
                    if !groundPoints.isEmpty, let motion = groundFilter(r), let point = groundPoints[detectionIndices[c]],
                       let distance = motion.squaredDistance(to: point),
                       distance > groundGate { continue }
                    var weight = iou
                    if centreWeight > 0 || footWeight > 0 || gate.isFinite {
                        let dx = (candidate.x + candidate.width / 2) - (track.x + track.width / 2)
                        let dy = (candidate.y + candidate.height / 2) - (track.y + track.height / 2)
                        let distanceSquared = dx * dx + dy * dy
                        if distanceSquared > gate { continue }
                        if centreWeight > 0 {
                            let enclosingWidth = max(trackRight, candidate.x + candidate.width) - min(track.x, candidate.x)
                            let enclosingHeight = max(trackBottom, candidate.y + candidate.height) - min(track.y, candidate.y)
                            let diagonalSquared = enclosingWidth * enclosingWidth + enclosingHeight * enclosingHeight
                            if diagonalSquared > 0 { weight -= centreWeight * distanceSquared / diagonalSquared }
                        }
                        if footWeight > 0 {
                            // Bottom-centre points: same horizontal offset, vertical offset of the bottoms.
                            let footDy = (candidate.y + candidate.height) - trackBottom
                            weight -= footWeight * (dx * dx + footDy * footDy) / (track.height * track.height)
                        }
                    }
                    if low { weight *= lowWeight }
                    if scoreWeighted { weight *= max(detections[detectionIndices[c]].score * scoreScale, 0) }
                    // Keep admissible pairs worth something, so they still count as matches.
                    pairs.append((r, c, max(weight, 1e-4)))
                }
            }
        }
        if configuration.classAware {
            pairs.removeAll { pair in
                guard let trackClass = tracks[pair.row].smoothedClass,
                      let detectionClass = detections[detectionIndices[pair.column]].classIndex else { return false }
                return trackClass != detectionClass
            }
        }
        guard !pairs.isEmpty else { return }

        var groups = UnionFind(count: rows + columns)   // rows, then columns
        for pair in pairs { groups.union(pair.row, rows + pair.column) }
        // A group containing a track is named by its smallest row (UnionFind keeps the minimum).
        // The pairs of each group, in pair order: group g's are members[start[g]..<start[g + 1]]
        // (counted, then placed: no array per group).
        var groupOfPair = [Int](repeating: 0, count: pairs.count)
        var start = [Int](repeating: 0, count: rows + 1)
        for (k, pair) in pairs.enumerated() {
            let group = groups.root(pair.row)
            groupOfPair[k] = group
            start[group + 1] += 1
        }
        for group in 0..<rows { start[group + 1] += start[group] }
        var members = [Int](repeating: 0, count: pairs.count)
        var placed = start
        for k in pairs.indices {
            members[placed[groupOfPair[k]]] = k
            placed[groupOfPair[k]] += 1
        }

        var columnOfRow = [Int?](repeating: nil, count: rows)
        var localRow = [Int](repeating: -1, count: rows)
        var localColumn = [Int](repeating: -1, count: columns)
        for group in 0..<rows where start[group + 1] > start[group] {
            let groupPairs = members[start[group]..<start[group + 1]]
            if groupPairs.count == 1 {
                let pair = pairs[groupPairs[groupPairs.startIndex]]
                columnOfRow[pair.row] = pair.column
                continue
            }
            var memberRows: [Int] = [], memberColumns: [Int] = []
            for k in groupPairs {
                let pair = pairs[k]
                if localRow[pair.row] < 0 { localRow[pair.row] = memberRows.count; memberRows.append(pair.row) }
                if localColumn[pair.column] < 0 { localColumn[pair.column] = memberColumns.count; memberColumns.append(pair.column) }
            }
            var sub = [Double](repeating: 0, count: memberRows.count * memberColumns.count)
            for k in groupPairs {
                let pair = pairs[k]
                sub[localRow[pair.row] * memberColumns.count + localColumn[pair.column]] = -Double(pair.weight)
            }
            if let assignment = try? LinearAssignment.solve(costs: sub, rows: memberRows.count, columns: memberColumns.count) {
                for (k, c) in assignment.enumerated() {
                    // Only admissible (negative-cost) pairs count as matches.
                    if let c, sub[k * memberColumns.count + c] < 0 { columnOfRow[memberRows[k]] = memberColumns[c] }
                }
            }
            for r in memberRows { localRow[r] = -1 }
            for c in memberColumns { localColumn[c] = -1 }
        }
        for r in 0..<rows {
            if let c = columnOfRow[r] {
                matchedTrack[r] = true
                trackOfDetection[detectionIndices[c]] = r
            }
        }
    }
}

extension IoUTracker {
    /// A second chance for confirmed tracks lost for an update or more and left unmatched: they
    /// may take an unmatched high-score detection by ground-plane distance alone (no overlap
    /// needed) when its foot point is inside the gate and its height within
    /// `reacquisitionHeightRatio` of the track's predicted and last detected heights. The pair's
    /// weight is `1 − d²/gate`; one optimal assignment over those pairs.
    func recoverLostTracks(
        highIndices: [Int], detections: [TrackerDetection], ground: GroundContext, groundPoints: [GroundPoint?],
        matchedTrack: inout [Bool], trackOfDetection: inout [Int?]
    ) {
        var rows: [Int] = []
        for r in tracks.indices where !matchedTrack[r] && tracks[r].id != nil && tracks[r].missedUpdates >= 1
            && groundFilter(r) != nil { rows.append(r) }
        var columns: [Int] = []
        for d in highIndices where trackOfDetection[d] == nil { columns.append(d) }
        guard !rows.isEmpty, !columns.isEmpty, groundFit.isTrusted else { return }
        let gate = Double(ground.settings.gate)
        let ratio = configuration.reacquisitionHeightRatio
        var costs = [Double](repeating: 0, count: rows.count * columns.count)
        var usedRows: [Int] = [], usedColumns = [Bool](repeating: false, count: columns.count)
        for (i, r) in rows.enumerated() {
            guard let motion = groundFilter(r) else { continue }
            let predicted = tracks[r].motion.box.height, last = tracks[r].lastDetection.height
            var any = false
            for (j, d) in columns.enumerated() {
                let h = detections[d].box.height
                if let ratio, h > predicted * ratio || predicted > h * ratio || h > last * ratio || last > h * ratio { continue }
                if configuration.classAware, let trackClass = tracks[r].smoothedClass,
                   let detectionClass = detections[d].classIndex, trackClass != detectionClass { continue }
                guard let point = groundPoints[d], let distance = motion.squaredDistance(to: point),
                      distance <= gate else { continue }
                costs[i * columns.count + j] = -max(1 - distance / gate, 1e-4)
                any = true
                usedColumns[j] = true
            }
            if any { usedRows.append(i) }
        }
        guard !usedRows.isEmpty else { return }
        var keptColumns: [Int] = []
        for j in columns.indices where usedColumns[j] { keptColumns.append(j) }
        var sub = [Double](repeating: 0, count: usedRows.count * keptColumns.count)
        for (a, i) in usedRows.enumerated() {
            for (b, j) in keptColumns.enumerated() { sub[a * keptColumns.count + b] = costs[i * columns.count + j] }
        }
        guard let assignment = try? LinearAssignment.solve(costs: sub, rows: usedRows.count, columns: keptColumns.count) else { return }
        for (a, b) in assignment.enumerated() {
            guard let b, sub[a * keptColumns.count + b] < 0 else { continue }
            let r = rows[usedRows[a]]
            matchedTrack[r] = true
            trackOfDetection[columns[keptColumns[b]]] = r
        }
    }
}

extension IoUTracker {
    /// The first index of the ascending `values` whose value is greater than `bound`.
    package static func firstIndex<Values: RandomAccessCollection<Float>>(in values: Values, above bound: Float) -> Int
    where Values.Index == Int {
        var low = values.startIndex, high = values.endIndex
        while low < high {
            let middle = (low + high) / 2
            if values[middle] > bound { high = middle } else { low = middle + 1 }
        }
        return low
    }
}

extension IoUTracker {
    /// The indices of `boxes` ordered by left edge, ties by index (boxes with NaN edges are
    /// never given to it). Sorts one integer key per box, ordered as the floats are:
    /// sign-flipped bits above, index below.
    static func orderByLeftEdge(_ boxes: [TrackBox]) -> [Int] {
        var keys: [UInt64] = []
        keys.reserveCapacity(boxes.count)
        for (index, box) in boxes.enumerated() {
            let bits = (box.x + 0).bitPattern    // + 0 makes -0 the same key as +0
            let ordered = bits & 0x8000_0000 != 0 ? ~bits : bits | 0x8000_0000
            keys.append(UInt64(ordered) << 32 | UInt64(truncatingIfNeeded: index))
        }
        keys.sort()
        return keys.map { Int(truncatingIfNeeded: $0 & 0xFFFF_FFFF) }
    }

    /// Boxes tested together for overlap with a track (the edge arrays carry this many NaNs
    /// past their last box).
    static let overlapLanes = 8

    /// Bit i set when box `at + i` (its edges at that index of the four arrays, which must hold
    /// `at + overlapLanes` numbers) overlaps the box (left, top, right, bottom): its left edge
    /// before `right`, its right edge after `left`, its top above `bottom`, its bottom below
    /// `top`. NaN edges overlap nothing. Straight-line: no branch per box.
    @inline(__always)
    static func overlapBits(
        lefts: UnsafePointer<Float>, tops: UnsafePointer<Float>, rights: UnsafePointer<Float>,
        bottoms: UnsafePointer<Float>, at index: Int, left: Float, top: Float, right: Float, bottom: Float
    ) -> UInt32 {
        var bits: UInt32 = 0
        for lane in 0..<overlapLanes {
            let k = index + lane
            let hit: UInt32 = (lefts[k] < right ? 1 : 0) & (rights[k] > left ? 1 : 0)
                & (tops[k] < bottom ? 1 : 0) & (bottoms[k] > top ? 1 : 0)
            bits |= hit << UInt32(lane)
        }
        return bits
    }
}

/// Disjoint sets whose representative is always the smallest member.
private struct UnionFind {
    private var parent: [Int]
    init(count: Int) { parent = Array(0..<count) }

    mutating func root(_ node: Int) -> Int {
        var node = node
        while parent[node] != node {
            parent[node] = parent[parent[node]]
            node = parent[node]
        }
        return node
    }

    mutating func union(_ a: Int, _ b: Int) {
        let ra = root(a), rb = root(b)
        if ra != rb { parent[max(ra, rb)] = min(ra, rb) }
    }
}
