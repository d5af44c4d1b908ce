import DetectorZlib
import DetectorPlatform
/// The quantized DCT coefficients of one component, 64 `Int16` per block in natural order,
/// `storedBlocksPerRow * storedBlockRows` blocks, zero-initialized. Owned memory, freed on deinit.
final class JPEGCoefficientPlane {
    let blocksPerRow: Int
    let blockRows: Int
    let pointer: UnsafeMutablePointer<Int16>

    init(blocksPerRow: Int, blockRows: Int) {
        self.blocksPerRow = blocksPerRow
        self.blockRows = blockRows
        let count = blocksPerRow * blockRows * 64
        pointer = .allocate(capacity: count)
        pointer.initialize(repeating: 0, count: count)
    }

    /// The first coefficient of block (`column`, `row`); callers keep both inside the stored grid.
    @inline(__always)
    func block(column: Int, row: Int) -> UnsafeMutablePointer<Int16> {
        pointer + (row &* blocksPerRow &+ column) &* 64
    }

    deinit { pointer.deallocate() }
}
