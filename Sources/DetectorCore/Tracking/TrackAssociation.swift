extension IoUTracker {
    /// Optimal matching of every track (by its predicted box) and the given detections; fills
    /// `matchedTrack` and `trackOfDetection`.
    ///
    /// A pair is admissible when its IoU reaches `iouThreshold`, the classes agree (when
    /// class-aware), a low-score detection (`isLow`) meets a confirmed track and, for a track
    /// that missed updates, the detection's centre is inside the re-acquisition gate. Its
    /// weight is `IoU − centreDistanceWeight · d²/c²` (d: distance of the centres, c: diagonal
    /// of the box enclosing both), times `lowScoreWeight` for a low-score detection, so a
    /// high-score detection wins a close call. Other pairs are worth nothing, so the
    /// maximum-weight matching splits into independent groups of tracks and detections linked
    /// by admissible pairs. Each group is solved on its own (most are a single pair and need no
    /// solver), and memory grows with the admissible pairs and group sizes, not with
    /// tracks × detections.
    func associate(
        detectionIndices: [Int], detections: [TrackerDetection], isLow: [Bool],
        matchedTrack: inout [Bool], trackOfDetection: inout [Int?]
    ) {
        let rows = tracks.count, columns = detectionIndices.count
        guard rows > 0, columns > 0 else { return }
        let threshold = configuration.iouThreshold
        var predicted: [TrackBox] = []
        predicted.reserveCapacity(rows)
        for track in tracks { predicted.append(track.motion.box) }
        var candidates: [TrackBox] = []
        candidates.reserveCapacity(columns)
        for d in detectionIndices { candidates.append(detections[d].box) }
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

        var pairs: [(row: Int, column: Int, weight: Float)] = []
        predicted.withUnsafeBufferPointer { trackBoxes in
            candidates.withUnsafeBufferPointer { detectionBoxes in
                for r in 0..<rows {
                    let track = trackBoxes[r]
                    let trackRight = track.x + track.width, trackBottom = track.y + track.height
                    let gate = gateRadiusSquared[r]
                    let tentative = tracks[r].id == nil
                    for c in 0..<columns {
                        let candidate = detectionBoxes[c]
                        let low = isLow[detectionIndices[c]]
                        if low && tentative { continue }
                        // Cheap rejection of boxes that do not overlap at all.
                        if candidate.x >= trackRight || candidate.y >= trackBottom
                            || candidate.x + candidate.width <= track.x || candidate.y + candidate.height <= track.y {
                            continue
                        }
                        let iou = track.iou(candidate)
                        guard iou >= threshold else { continue }
                        var weight = iou
                        if centreWeight > 0 || gate.isFinite {
                            let dx = (candidate.x + candidate.width / 2) - (track.x + track.width / 2)
                            let dy = (candidate.y + candidate.height / 2) - (track.y + track.height / 2)
                            let distanceSquared = dx * dx + dy * dy
                            if distanceSquared > gate { continue }
                            let enclosingWidth = max(trackRight, candidate.x + candidate.width) - min(track.x, candidate.x)
                            let enclosingHeight = max(trackBottom, candidate.y + candidate.height) - min(track.y, candidate.y)
                            let diagonalSquared = enclosingWidth * enclosingWidth + enclosingHeight * enclosingHeight
                            if diagonalSquared > 0 { weight -= centreWeight * distanceSquared / diagonalSquared }
                        }
                        // Keep admissible pairs worth something, so they still count as matches.
                        if low { weight *= lowWeight }
                        pairs.append((r, c, max(weight, 1e-4)))
                    }
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
        var pairsOfGroup = [[Int]](repeating: [], count: rows)
        for (k, pair) in pairs.enumerated() { pairsOfGroup[groups.root(pair.row)].append(k) }

        var columnOfRow = [Int?](repeating: nil, count: rows)
        var localRow = [Int](repeating: -1, count: rows)
        var localColumn = [Int](repeating: -1, count: columns)
        for group in 0..<rows where !pairsOfGroup[group].isEmpty {
            let members = pairsOfGroup[group]
            if members.count == 1 {
                let pair = pairs[members[0]]
                columnOfRow[pair.row] = pair.column
                continue
            }
            var memberRows: [Int] = [], memberColumns: [Int] = []
            for k in members {
                let pair = pairs[k]
                if localRow[pair.row] < 0 { localRow[pair.row] = memberRows.count; memberRows.append(pair.row) }
                if localColumn[pair.column] < 0 { localColumn[pair.column] = memberColumns.count; memberColumns.append(pair.column) }
            }
            var sub = [Double](repeating: 0, count: memberRows.count * memberColumns.count)
            for k in members {
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
