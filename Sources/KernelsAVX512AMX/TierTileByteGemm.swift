import Builtin
import KernelsAVX512

// LLVM's AMX intrinsics. `tilezero`, `tdpbusd` and `tilerelease` come from the Builtin module
// (`Builtin.int_x86_*`), which declares them with their immediate-operand attributes. The
// configuration load and the tile loads and stores take a pointer, which the Builtin module's
// intrinsic signatures drop, so they are declared by name; their tile number is read from the
// constant operand, which every call below passes as a literal.
@_silgen_name("llvm.x86.ldtilecfg") private func loadTileConfiguration(_ configuration: UnsafeRawPointer)
@_silgen_name("llvm.x86.tileloadd64") private func tileLoad(_ tile: Int8, _ base: UnsafeRawPointer, _ stride: Int)
@_silgen_name("llvm.x86.tilestored64") private func tileStore(_ tile: Int8, _ base: UnsafeMutableRawPointer, _ stride: Int)

/// The byte GEMM on AMX tiles (Sapphire Rapids and later): the sums of
/// `KernelsAVX512.TierByteGemm` — `C[i][j] = Σ_q A[i][q] · B[j][q]`, A unsigned and B signed
/// bytes, exact in Int32 — from `tdpbusd`, which multiplies up to 16 rows × 64 depths of A by
/// 64 depths × 16 channels of B into 16 × 16 sums (1,024 products per instruction).
///
/// The packed panels need no repacking: a panel's consecutive 64-byte steps (channel l's
/// depths 4s…4s+3 at bytes 4l…4l+3 of step s) are a B tile, one step a tile row. A rows are
/// read in place, `lda` apart; a row's `runs` pieces (a convolution's filter rows) are cut into
/// chunks of `width` depths, the largest multiple of 4 up to 64 that divides the piece, so that
/// every A and B tile has one shape. Per 32 rows and 32 channels: tiles 0–3 the sums of two
/// row blocks × two panels (four independent chains: one `tdpbusd`'s latency is several of
/// its issue intervals), 4–5 the row blocks' chunk, 6–7 the panels' chunk. The sums go to a
/// buffer on the stack and through `TierByteGemm.requantizeRows` (or are copied out), so the
/// bytes are the VNNI kernel's. Rows with a zero-point correction (`rowWeights`) and pieces
/// whose chunks would be under 16 depths take the VNNI kernel.
///
/// ```swift
/// // Same arguments as `TierByteGemm.multiply`:
/// TierTileByteGemm.multiply(a: a, lda: 96, packedB: panels, m: 64, n: 64, kPadded: 288, runs: 3,
///                           runStride: 66 * 32, rowWeights: nil, c: sums, ldc: 64)
/// ```
package enum TierTileByteGemm {
    /// The chunk width for pieces of `length` depths (a multiple of 4): the largest multiple of 4
    /// up to 64 dividing it, or nil when that is under 16. Measured in-process against the VNNI
    /// kernel (Emerald Rapids, per-invoke A/B): tiles for widths 4–12 too (YOLOv8n full integer's
    /// first layer, 12 depths) were 0.3–1.2 % slower; VNNI for widths 16–28 too was 2 % faster on
    /// YOLOX int8, 3 % slower on YOLOv5n int8, even on YOLOv8n.
    package static func chunkWidth(_ length: Int) -> Int? {
        guard length > 0, length % 4 == 0 else { return nil }
        var width = min(64, length)
        while width >= 16 {
            if length % width == 0 { return width }   // width stays a multiple of 4
            width -= 4
        }
        return nil
    }

    /// `TierByteGemm.multiply` on tiles.
    package static func multiply(a: UnsafePointer<UInt8>, lda: Int, packedB: UnsafePointer<Int8>,
                                 m: Int, n: Int, kPadded kp: Int, runs: Int = 1, runStride: Int = 0,
                                 rowWeights: UnsafePointer<Int32>?, c: UnsafeMutablePointer<Int32>, ldc: Int) {
        let runs = max(1, runs)
        guard rowWeights == nil, m > 0, n > 0, kp % runs == 0, let width = chunkWidth(kp / runs) else {
            TierByteGemm.multiply(a: a, lda: lda, packedB: packedB, m: m, n: n, kPadded: kp, runs: runs, runStride: runStride,
                                  rowWeights: rowWeights, c: c, ldc: ldc)
            return
        }
        blocks(a: a, lda: lda, packedB: packedB, m: m, n: n, kPadded: kp, runs: runs, runStride: runStride, width: width) {
            (sums: UnsafePointer<Int32>, ldb: Int, i: Int, rows: Int, j0: Int, count: Int) in
            var r = 0
            while r < rows {
                let target: UnsafeMutablePointer<Int32> = c + ((i &+ r) &* ldc &+ j0)
                target.update(from: sums + r &* ldb, count: count)
                r &+= 1
            }
        }
    }

    /// `TierByteGemm.multiplyRequantized` on tiles: the sums of 32 rows and 32 channels at a
    /// time, then `TierByteGemm.requantizeRows`.
    package static func multiplyRequantized(a: UnsafePointer<UInt8>, lda: Int, packedB: UnsafePointer<Int8>,
                                            m: Int, n: Int, kPadded kp: Int, runs: Int, runStride: Int,
                                            rowWeights: UnsafePointer<Int32>?, bias: UnsafePointer<Int32>,
                                            doubledMultiplier: UnsafePointer<UInt32>, rightShift: UnsafePointer<UInt32>,
                                            outputZeroPoint: Int32, activationMin: Int32, activationMax: Int32,
                                            output: UnsafeMutableRawPointer, ldo: Int) {
        let runs = max(1, runs)
        guard rowWeights == nil, m > 0, n > 0, kp % runs == 0, let width = chunkWidth(kp / runs) else {
            TierByteGemm.multiplyRequantized(a: a, lda: lda, packedB: packedB, m: m, n: n, kPadded: kp, runs: runs,
                                             runStride: runStride, rowWeights: rowWeights, bias: bias,
                                             doubledMultiplier: doubledMultiplier, rightShift: rightShift,
                                             outputZeroPoint: outputZeroPoint, activationMin: activationMin,
                                             activationMax: activationMax, output: output, ldo: ldo)
            return
        }
        blocks(a: a, lda: lda, packedB: packedB, m: m, n: n, kPadded: kp, runs: runs, runStride: runStride, width: width) {
            (sums: UnsafePointer<Int32>, ldb: Int, i: Int, rows: Int, j0: Int, count: Int) in
            TierByteGemm.requantizeRows(sums, ldb: ldb, rows: rows, count: count, bias: bias + j0,
                                        doubledMultiplier: doubledMultiplier + j0, rightShift: rightShift + j0,
                                        outputZeroPoint: outputZeroPoint, activationMin: activationMin,
                                        activationMax: activationMax, output: output + (i &* ldo &+ j0), ldo: ldo)
        }
    }

    /// Every unit of at most 32 rows × 32 channels (two row blocks × two panels, tiles 0–3):
    /// `epilogue(sums, ldb, firstRow, rows, firstChannel, channels)` on its sums (32 a row) in a
    /// stack buffer. Software-pipelined: a unit's `tdpbusd`s are issued, then the previous
    /// unit's epilogue runs on the vector units while the tile unit works, then the unit's sums
    /// are stored (two buffers in turn). Row blocks are 16 + 16 while 32 rows remain, then the
    /// rest split in two. Releases the tiles at the end (the thread's tile state back to its
    /// initial state, which the OS does not save).
    @inline(__always)
    private static func blocks(a: UnsafePointer<UInt8>, lda: Int, packedB: UnsafePointer<Int8>, m: Int, n: Int,
                               kPadded kp: Int, runs: Int, runStride: Int, width: Int,
                               epilogue: (UnsafePointer<Int32>, Int, Int, Int, Int, Int) -> Void) {
        let length = kp / runs, chunks = length / width
        let panels = (n &+ 15) / 16
        let ldb = 32, unitSums = 32 * ldb
        withUnsafeTemporaryAllocation(of: Int32.self, capacity: 2 * unitSums) { buffer in
            guard let base = buffer.baseAddress else { return }
            // The unit whose sums wait in `base + pendingBuffer · unitSums` for their epilogue.
            var pending: (buffer: Int, row: Int, rows: Int, channel: Int, channels: Int)? = nil
            var next = 0
            var configured = (0, 0)
            var i = 0
            while i < m {
                let left = m &- i
                let shape = left >= 32 ? (16, 16) : left > 16 ? (16, left &- 16) : ((left &+ 1) / 2, left / 2)
                if shape != configured {
                    configure(first: shape.0, second: shape.1, width: width)
                    configured = shape
                }
                let rows = shape.0 &+ shape.1
                let a0 = UnsafeRawPointer(a + i &* lda), a1 = UnsafeRawPointer(a + (i &+ shape.0) &* lda)
                var p = 0
                while p < panels {
                    let pair = p &+ 1 < panels
                    accumulate(a0: a0, a1: a1, hasSecond: shape.1 > 0, lda: lda, b0: UnsafeRawPointer(packedB + p &* 16 &* kp),
                               pair: pair, kPadded: kp, runs: runs, runStride: runStride, length: length, width: width, chunks: chunks)
                    if let unit = pending {
                        epilogue(UnsafePointer(base + unit.buffer &* unitSums), ldb, unit.row, unit.rows, unit.channel, unit.channels)
                    }
                    store(into: base + next &* unitSums, second: shape.0, hasSecond: shape.1 > 0, pair: pair, ldb: ldb)
                    let j0 = p &* 16
                    pending = (next, i, rows, j0, min(n, j0 &+ 32) &- j0)
                    next ^= 1
                    p &+= 2
                }
                i &+= rows
            }
            if let unit = pending {
                epilogue(UnsafePointer(base + unit.buffer &* unitSums), ldb, unit.row, unit.rows, unit.channel, unit.channels)
            }
        }
        Builtin.int_x86_tilerelease()
    }

    /// Loads the tile shapes (palette 1): sums tiles 0–1 `first` × 16 and 2–3 `second` × 16
    /// (empty when 0), row tiles 4 `first` × `width` bytes and 5 `second` × `width`, weight
    /// tiles 6–7 `width / 4` × 64 bytes.
    @inline(__always)
    private static func configure(first: Int, second: Int, width: Int) {
        var configuration = SIMD64<UInt8>(repeating: 0)
        configuration[0] = 1
        func shape(_ tile: Int, rows: Int, bytes: Int) {
            guard rows > 0 else { return }
            configuration[16 &+ 2 &* tile] = UInt8(truncatingIfNeeded: bytes)
            configuration[48 &+ tile] = UInt8(truncatingIfNeeded: rows)
        }
        shape(0, rows: first, bytes: 64)
        shape(1, rows: first, bytes: 64)
        shape(2, rows: second, bytes: 64)
        shape(3, rows: second, bytes: 64)
        shape(4, rows: first, bytes: width)
        shape(5, rows: second, bytes: width)
        shape(6, rows: width / 4, bytes: 64)
        shape(7, rows: width / 4, bytes: 64)
        withUnsafeBytes(of: &configuration) { bytes in
            if let base = bytes.baseAddress { loadTileConfiguration(base) }
        }
    }

    /// Tiles 0–3 = the sums of the configured row blocks (at `a0` and, when `hasSecond`, `a1`)
    /// against the panel at `b0` and, when `pair`, the next one.
    @inline(__always)
    private static func accumulate(a0: UnsafeRawPointer, a1: UnsafeRawPointer, hasSecond: Bool, lda: Int, b0: UnsafeRawPointer,
                                   pair: Bool, kPadded kp: Int, runs: Int, runStride: Int, length: Int, width: Int, chunks: Int) {
        let b1 = b0 + 16 &* kp
        Builtin.int_x86_tilezero(Int8(0)._value)
        if pair { Builtin.int_x86_tilezero(Int8(1)._value) }
        if hasSecond {
            Builtin.int_x86_tilezero(Int8(2)._value)
            if pair { Builtin.int_x86_tilezero(Int8(3)._value) }
        }
        var run = 0
        while run < runs {
            let row = a0 + run &* runStride, row1 = a1 + run &* runStride
            var chunk = 0
            while chunk < chunks {
                let depth = chunk &* width
                // Depth q of a panel is at byte 16q (step q/4, 64 bytes a step).
                let weights = (run &* length &+ depth) &* 16
                tileLoad(4, row + depth, lda)
                tileLoad(6, b0 + weights, 64)
                Builtin.int_x86_tdpbusd(Int8(0)._value, Int8(4)._value, Int8(6)._value)
                if pair {
                    tileLoad(7, b1 + weights, 64)
                    Builtin.int_x86_tdpbusd(Int8(1)._value, Int8(4)._value, Int8(7)._value)
                }
                if hasSecond {
                    tileLoad(5, row1 + depth, lda)
                    Builtin.int_x86_tdpbusd(Int8(2)._value, Int8(5)._value, Int8(6)._value)
                    if pair { Builtin.int_x86_tdpbusd(Int8(3)._value, Int8(5)._value, Int8(7)._value) }
                }
                chunk &+= 1
            }
            run &+= 1
        }
    }

    /// Tiles 0–3 to `sums` (`ldb` sums a row): the first row block's channels 0–15 and 16–31 in
    /// its first rows, the second block's `second` rows on.
    @inline(__always)
    private static func store(into sums: UnsafeMutablePointer<Int32>, second: Int, hasSecond: Bool, pair: Bool, ldb: Int) {
        let rowBytes = ldb &* 4
        let out = UnsafeMutableRawPointer(sums), out1 = UnsafeMutableRawPointer(sums + second &* ldb)
        tileStore(0, out, rowBytes)
        if pair { tileStore(1, out + 64, rowBytes) }
        if hasSecond {
            tileStore(2, out1, rowBytes)
            if pair { tileStore(3, out1 + 64, rowBytes) }
        }
    }
}
