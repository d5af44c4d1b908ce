import DetectorZlib
import DetectorPlatform
/// The working memory of a streamed sequential scan (`JPEGStreamParser.allowsStreaming`): one
/// MCU row of coefficients per scan member and slot (`slots` rows in turn when a second thread
/// transforms them, `JPEGScanPipeline`), zeroed, and each component's sample plane.
/// `transformRow` runs the IDCT of an MCU row's blocks that cover real samples, as the pixel
/// assembler does for whole planes, and clears the row for the next one; the coefficients of
/// a large image never exist all at once (zidane.jpg: 2.7 MB of planes, allocated, zeroed,
/// written and read back, page faults included, per decode).
///
/// The sample planes are handed to the parser (`streamedSamples`), which frees them; the rows
/// and quantization tables are freed with this object.
final class StreamedRows {
    /// Per scan member: `slots` MCU rows of blocks (`storedBlocksPerRow * v` blocks each).
    let rows: [UnsafeMutablePointer<Int16>]
    /// MCU rows held at once: MCU row `y` uses slot `y % slots`.
    let slots: Int
    /// Per component (frame order): `blocksPerRow * 8` bytes per row, `blockRows * 8` rows.
    let samples: [UnsafeMutablePointer<UInt8>]
    private let quants: [UnsafeMutablePointer<Int32>]
    /// Per scan member: coefficients in one MCU row (one slot).
    let rowLengths: [Int]
    private let componentIndices: [Int]
    private let frame: JPEGFrame
    private let interleaved: Bool

    init(frame: JPEGFrame, scan: JPEGScanHeader, slots: Int = 1) {
        self.frame = frame
        self.slots = max(1, slots)
        interleaved = scan.members.count > 1
        componentIndices = scan.members.map(\.componentIndex)
        samples = frame.components.map { c in .allocate(capacity: c.blocksPerRow * 8 * c.blockRows * 8) }
        var rows: [UnsafeMutablePointer<Int16>] = [], lengths: [Int] = [], quants: [UnsafeMutablePointer<Int32>] = []
        for ci in componentIndices {
            let c = frame.components[ci]
            let length = c.storedBlocksPerRow * (scan.members.count > 1 ? c.v : 1) * 64
            let row = UnsafeMutablePointer<Int16>.allocate(capacity: length * self.slots)
            row.initialize(repeating: 0, count: length * self.slots)
            rows.append(row)
            lengths.append(length)
            let quant = UnsafeMutablePointer<Int32>.allocate(capacity: 64)
            quant.initialize(repeating: 0, count: 64)
            if let table = c.quant, table.count == 64 { quant.update(from: table, count: 64) }
            quants.append(quant)
        }
        self.rows = rows
        rowLengths = lengths
        self.quants = quants
    }

    deinit {
        for row in rows { row.deallocate() }
        for quant in quants { quant.deallocate() }
    }

    /// The coefficients of MCU row `mcuY` for scan member `member`.
    func coefficients(member: Int, mcuY: Int) -> UnsafeMutablePointer<Int16> {
        rows[member] + (mcuY % slots) * rowLengths[member]
    }

    /// The IDCT of MCU row `mcuY` into the sample planes, then its slot cleared.
    func transformRow(_ mcuY: Int) {
        for i in componentIndices.indices {
            let ci = componentIndices[i]
            let slot = coefficients(member: i, mcuY: mcuY)
            let c = frame.components[ci]
            let v = interleaved ? c.v : 1
            let stride = c.blocksPerRow * 8
            for by in 0..<v {
                let blockRow = mcuY * v + by
                guard blockRow < c.blockRows else { break }
                JPEGIDCT.transformBlocks(slot + by * c.storedBlocksPerRow * 64, count: c.blocksPerRow, quant: quants[i],
                                         output: samples[ci] + blockRow * 8 * stride, stride: stride)
            }
            slot.update(repeating: 0, count: rowLengths[i])
        }
    }
}
