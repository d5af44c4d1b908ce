import DetectorZlib
import DetectorPlatform
/// Zig-zag position `k` → natural (row-major) index in the 8x8 block (T.81 Figure A.6),
/// followed by 16 entries of 63 so that a corrupt run that overshoots position 63 lands on the
/// last coefficient instead of outside the block (libjpeg does the same).
let jpegNaturalOrder: [Int] = [
    0, 1, 8, 16, 9, 2, 3, 10, 17, 24, 32, 25, 18, 11, 4, 5,
    12, 19, 26, 33, 40, 48, 41, 34, 27, 20, 13, 6, 7, 14, 21, 28,
    35, 42, 49, 56, 57, 50, 43, 36, 29, 22, 15, 23, 30, 37, 44, 51,
    58, 59, 52, 45, 38, 31, 39, 46, 53, 60, 61, 54, 47, 55, 62, 63,
    63, 63, 63, 63, 63, 63, 63, 63, 63, 63, 63, 63, 63, 63, 63, 63,
]

/// One image component as described by SOF, plus its decode-time storage geometry.
struct JPEGComponent {
    var id: Int
    var h: Int
    var v: Int
    var quantTableIndex: Int
    /// Samples per row / rows of the component (`ceil(W*h/Hmax)`, `ceil(H*v/Vmax)`).
    var width: Int
    var height: Int
    /// Blocks stored per row / rows: the interleaved layout (`mcusX*h` x `mcusY*v`), which
    /// also covers the non-interleaved layout.
    var storedBlocksPerRow: Int
    var storedBlockRows: Int
    /// Blocks of a non-interleaved scan: `ceil(width/8)` x `ceil(height/8)`.
    var blocksPerRow: Int
    var blockRows: Int
    /// The quantization table copied when the component first appears in a scan (natural order).
    var quant: [Int32]?
}

/// The frame header (SOF) with the derived MCU geometry.
struct JPEGFrame {
    var width: Int
    var height: Int
    var progressive: Bool
    var components: [JPEGComponent]
    var maxH: Int
    var maxV: Int
    var mcusPerRow: Int
    var mcuRows: Int
}

/// Ceiling division for positive numbers.
@inline(__always) func jpegCeilDiv(_ a: Int, _ b: Int) -> Int { (a + b - 1) / b }
