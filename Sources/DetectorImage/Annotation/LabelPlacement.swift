import DetectorZlib
import DetectorPlatform
/// Where `ImageAnnotator` puts the label tags: each inside the image and clear of every tag
/// placed before it, as long as the image has room.
///
/// For a box from (x0, y0) to (x1, y1) and a tag `width` × `height`, the tag's left edge is x0,
/// moved left when the tag would pass the right edge of the image (and to 0 past the left edge).
/// Its top edge is the first of these that lies inside the image and overlaps no tag placed
/// before it: above the box (y0 − height), inside its top edge (y0), below the box (y1); then
/// rows one tag height apart going down from the first of those inside the image (or, when none
/// is, from the row nearest the box's top edge), then going up from it. When every row overlaps
/// another tag (more tags than the image holds), the tag goes to its first place inside the
/// image, and so do all tags once 20 million overlap tests have been spent (thousands of tags on
/// one image), so drawing time stays bounded.
struct LabelPlacement {
    let imageWidth: Int
    let imageHeight: Int
    /// Tags placed so far, bucketed by `top / tagHeight` (all tags of one drawing have the same height).
    private var rows: [Int: [PlacedTag]] = [:]
    private let tagHeight: Int
    /// Overlap tests left before placement stops looking for free rows.
    private var budget = 20_000_000

    struct PlacedTag: Equatable {
        var x: Int
        var y: Int
        var width: Int
        var height: Int

        func overlaps(_ o: PlacedTag) -> Bool {
            x < o.x + o.width && o.x < x + width && y < o.y + o.height && o.y < y + height
        }
    }

    init(imageWidth: Int, imageHeight: Int, tagHeight: Int) {
        self.imageWidth = imageWidth
        self.imageHeight = imageHeight
        self.tagHeight = max(tagHeight, 1)
    }

    /// Places a tag `width` wide (and `tagHeight` high) for the box (x0, y0)–(x1, y1) and remembers it.
    mutating func place(width: Int, boxMinX x0: Int, boxMinY y0: Int, boxMaxY y1: Int) -> PlacedTag {
        let height = tagHeight
        let left = max(min(x0, imageWidth - width), 0)
        let maxTop = imageHeight - height
        func tag(_ top: Int) -> PlacedTag { PlacedTag(x: left, y: top, width: width, height: height) }
        let preferred = [y0 - height, y0, y1].filter { $0 >= 0 && $0 <= maxTop }
        let start = preferred.first ?? max(min(y0, maxTop), 0)
        var chosen: PlacedTag?
        for top in preferred where isFree(tag(top)) {
            chosen = tag(top)
            break
        }
        if chosen == nil && maxTop >= 0 {
            // Stack: rows a tag height apart from the first place, first downwards, then upwards.
            var top = start
            while chosen == nil && top <= maxTop {
                if isFree(tag(top)) { chosen = tag(top) }
                top += height
            }
            top = start - height
            while chosen == nil && top >= 0 {
                if isFree(tag(top)) { chosen = tag(top) }
                top -= height
            }
        }
        // A tag that had to overlap others is not remembered: it would only slow down the tests
        // of later tags, which cannot use its place either.
        guard let placed = chosen else { return tag(start) }
        rows[bucket(placed.y), default: []].append(placed)
        return placed
    }

    private func bucket(_ top: Int) -> Int {
        top >= 0 ? top / tagHeight : (top + 1) / tagHeight - 1
    }

    /// No placed tag overlaps `t` (only tags whose top is within one tag height can).
    private mutating func isFree(_ t: PlacedTag) -> Bool {
        guard budget > 0 else { return true }
        let b = bucket(t.y)
        for k in (b - 1)...(b + 1) {
            guard let placed = rows[k] else { continue }
            budget -= placed.count
            if placed.contains(where: { $0.overlaps(t) }) { return false }
        }
        return true
    }
}
