#if arch(x86_64)
import _Builtin_intrinsics.intel
#endif

/// Which coefficients of a block are nonzero, as a 64-bit mask in zig-zag order (bit `k` for
/// zig-zag position `k`): what a successive-approximation refinement scan walks. Built from the
/// block's natural-order values with eight byte-table lookups (one per row of eight
/// coefficients), so a refinement visits only the coefficients it reads a bit for or counts as
/// zero history, instead of branching on every position of the band.
///
/// ```swift
/// let nonzero = masks.nonzero(block)   // bit 1 set when block[1] != 0, bit 2 when block[8] != 0
/// ```
/// `@unchecked Sendable`: the table is written once in `init` and only read afterwards.
struct JPEGZigZagMask: @unchecked Sendable {
    /// `table[row * 256 + bits]`: the zig-zag bits of the natural positions `8·row + c` for each
    /// bit `c` set in `bits`.
    let table: UnsafePointer<UInt64>

    /// The shared table (16 KB, built once).
    static let shared = JPEGZigZagMask()

    private init() {
        var zigzag = [Int](repeating: 0, count: 64)
        for k in 0..<64 { zigzag[jpegNaturalOrder[k]] = k }
        let t = UnsafeMutablePointer<UInt64>.allocate(capacity: 8 * 256)   // lives for the process
        for row in 0..<8 {
            for bits in 0..<256 {
                var mask: UInt64 = 0
                for c in 0..<8 where bits & (1 << c) != 0 { mask |= 1 << UInt64(zigzag[8 * row + c]) }
                t[row * 256 + bits] = mask
            }
        }
        table = UnsafePointer(t)
    }

    /// The zig-zag mask of the nonzero values among the 64 natural-order coefficients at `block`.
    @inline(__always)
    func nonzero(_ block: UnsafePointer<Int16>) -> UInt64 {
        let natural = Self.naturalNonzero(block)
        var mask: UInt64 = 0
        var row = 0
        while row < 8 {
            mask |= table[row &* 256 &+ Int(truncatingIfNeeded: (natural &>> UInt64(8 &* row)) & 0xFF)]
            row &+= 1
        }
        return mask
    }

    /// Bit `n` set when `block[n] != 0` (natural order): SSE2 compares, packs and byte masks.
    @inline(__always)
    static func naturalNonzero(_ block: UnsafePointer<Int16>) -> UInt64 {
        #if arch(x86_64)
        let raw = UnsafeRawPointer(block), zero = _mm_setzero_si128()
        @inline(__always) func zeroBits(_ pair: Int) -> UInt64 {
            let a = _mm_cmpeq_epi16(raw.loadUnaligned(fromByteOffset: 32 &* pair, as: __m128i.self), zero)
            let b = _mm_cmpeq_epi16(raw.loadUnaligned(fromByteOffset: 32 &* pair &+ 16, as: __m128i.self), zero)
            return UInt64(UInt16(truncatingIfNeeded: _mm_movemask_epi8(_mm_packs_epi16(a, b))))
        }
        return ~(zeroBits(0) | zeroBits(1) &<< 16 | zeroBits(2) &<< 32 | zeroBits(3) &<< 48)
        #else
        var bits: UInt64 = 0
        for n in 0..<64 where block[n] != 0 { bits |= 1 << UInt64(n) }
        return bits
        #endif
    }

    /// Bits `0..<count` for `count` ≥ 0 (all bits from 64 on).
    @inline(__always)
    static func below(_ count: Int) -> UInt64 {
        count >= 64 ? ~0 : (1 &<< UInt64(truncatingIfNeeded: count)) &- 1
    }
}
