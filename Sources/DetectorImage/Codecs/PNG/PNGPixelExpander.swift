import DetectorZlib
import DetectorPlatform
/// Turns unfiltered PNG scanlines of any colour type and bit depth into the canonical RGBA8 or
/// RGBA16 (big-endian) buffer of `shared/goldens/README-images.md`: gray replicated to R, G, B;
/// palette looked up; tRNS applied by comparing raw samples at the file's bit depth; low bit
/// depths scaled by bit replication; RGBA8 = RGBA16 >> 8.
struct PNGPixelExpander {
    let header: PNGHeader
    /// PLTE as RGB triplets (palette images only).
    let palette: [UInt8]
    /// The tRNS body (nil when absent).
    let transparency: [UInt8]?
    let sixteenBit: Bool

    /// The tRNS key for gray (one value) or RGB (three values), as raw samples.
    private var colorKey: (Int, Int, Int)? {
        guard let t = transparency else { return nil }
        if header.colorType == 0, t.count >= 2 {
            let g = Int(t[0]) << 8 | Int(t[1])
            return (g, g, g)
        }
        if header.colorType == 2, t.count >= 6 {
            return (Int(t[0]) << 8 | Int(t[1]), Int(t[2]) << 8 | Int(t[3]), Int(t[4]) << 8 | Int(t[5]))
        }
        return nil
    }

    /// Palette as RGBA16 values, 4 per entry.
    private func paletteTable() -> [UInt16] {
        var table = [UInt16](repeating: 0, count: (palette.count / 3) * 4)
        for i in 0..<(palette.count / 3) {
            table[4 * i] = UInt16(palette[3 * i]) * 257
            table[4 * i + 1] = UInt16(palette[3 * i + 1]) * 257
            table[4 * i + 2] = UInt16(palette[3 * i + 2]) * 257
            let alpha = transparency.flatMap { i < $0.count ? $0[i] : nil } ?? 255
            table[4 * i + 3] = UInt16(alpha) * 257
        }
        return table
    }

    /// Expands one pass. `data` holds its unfiltered rows, each `1 + rowBytes` long (filter byte first).
    func expand(pass: PNGHeader.Pass, data: UnsafePointer<UInt8>, into out: UnsafeMutablePointer<UInt8>) throws(PNGError) {
        if !sixteenBit && header.bitDepth == 8 && header.colorType != 3 {
            expand8(pass: pass, data: data, into: out)
            return
        }
        if header.colorType == 3 {
            try expandPalette(pass: pass, data: data, into: out)
            return
        }
        expandGeneral(pass: pass, data: data, into: out)
    }

    /// 8-bit gray, gray+alpha, RGB, RGBA to RGBA8: the common case, kept tight.
    private func expand8(pass: PNGHeader.Pass, data: UnsafePointer<UInt8>, into out: UnsafeMutablePointer<UInt8>) {
        let key = colorKey
        let width = header.width
        for py in 0..<pass.height {
            let row = data + py * (pass.rowBytes + 1) + 1
            let y = pass.y0 + py * pass.dy
            var o = out + (y * width + pass.x0) * 4
            let step = pass.dx * 4
            switch header.colorType {
            case 6:
                if pass.dx == 1 {
                    o.update(from: row, count: pass.width * 4)
                } else {
                    for px in 0..<pass.width {
                        UnsafeMutableRawPointer(o).storeBytes(
                            of: UnsafeRawPointer(row + 4 * px).loadUnaligned(as: UInt32.self), as: UInt32.self)
                        o += step
                    }
                }
            case 2:
                if let (kr, kg, kb) = key {
                    for px in 0..<pass.width {
                        let r = row[3 * px], g = row[3 * px + 1], b = row[3 * px + 2]
                        o[0] = r; o[1] = g; o[2] = b
                        o[3] = (Int(r) == kr && Int(g) == kg && Int(b) == kb) ? 0 : 255
                        o += step
                    }
                } else {
                    for px in 0..<pass.width {
                        o[0] = row[3 * px]; o[1] = row[3 * px + 1]; o[2] = row[3 * px + 2]; o[3] = 255
                        o += step
                    }
                }
            case 4:
                for px in 0..<pass.width {
                    let g = row[2 * px]
                    o[0] = g; o[1] = g; o[2] = g; o[3] = row[2 * px + 1]
                    o += step
                }
            default: // 0
                let k = key?.0 ?? -1
                for px in 0..<pass.width {
                    let g = row[px]
                    o[0] = g; o[1] = g; o[2] = g; o[3] = Int(g) == k ? 0 : 255
                    o += step
                }
            }
        }
    }

    /// Palette images of every index depth, to RGBA8 or RGBA16.
    private func expandPalette(pass: PNGHeader.Pass, data: UnsafePointer<UInt8>, into out: UnsafeMutablePointer<UInt8>) throws(PNGError) {
        let table = paletteTable()
        let entries = table.count / 4
        if header.bitDepth == 8 && !sixteenBit {
            try expandPalette8(pass: pass, data: data, into: out, table: table)
            return
        }
        let depth = header.bitDepth
        let mask = (1 << depth) - 1
        let width = header.width
        let bytesOut = sixteenBit ? 8 : 4
        let table8 = table.map { UInt8($0 >> 8) }
        for py in 0..<pass.height {
            let row = data + py * (pass.rowBytes + 1) + 1
            let y = pass.y0 + py * pass.dy
            var o = out + (y * width + pass.x0) * bytesOut
            let step = pass.dx * bytesOut
            for px in 0..<pass.width {
                let index: Int
                if depth == 8 {
                    index = Int(row[px])
                } else {
                    let bit = px * depth
                    index = (Int(row[bit >> 3]) >> (8 - depth - (bit & 7))) & mask
                }
                guard index < entries else { throw .paletteIndexOutOfRange(index: index, paletteSize: entries) }
                if sixteenBit {
                    for c in 0..<4 {
                        let v = table[4 * index + c]
                        o[2 * c] = UInt8(v >> 8); o[2 * c + 1] = UInt8(v & 0xFF)
                    }
                } else {
                    o[0] = table8[4 * index]; o[1] = table8[4 * index + 1]
                    o[2] = table8[4 * index + 2]; o[3] = table8[4 * index + 3]
                }
                o += step
            }
        }
    }

    /// 8-bit indices to RGBA8 through a 256-entry table of whole pixels.
    private func expandPalette8(pass: PNGHeader.Pass, data: UnsafePointer<UInt8>, into out: UnsafeMutablePointer<UInt8>,
                                table: [UInt16]) throws(PNGError) {
        let entries = table.count / 4
        var pixels = [UInt32](repeating: 0, count: 256)
        for i in 0..<entries {
            let bytes = SIMD4<UInt8>(UInt8(table[4 * i] >> 8), UInt8(table[4 * i + 1] >> 8),
                                     UInt8(table[4 * i + 2] >> 8), UInt8(table[4 * i + 3] >> 8))
            pixels[i] = unsafeBitCast(bytes, to: UInt32.self)
        }
        let width = header.width
        var badIndex = -1
        pixels.withUnsafeBufferPointer { lut in
            for py in 0..<pass.height {
                let row = data + py * (pass.rowBytes + 1) + 1
                let y = pass.y0 + py * pass.dy
                let o = UnsafeMutableRawPointer(out + (y * width + pass.x0) * 4)
                let step = pass.dx * 4
                var maxIndex = 0
                for px in 0..<pass.width {
                    let index = Int(row[px])
                    maxIndex = max(maxIndex, index)
                    o.storeBytes(of: lut[index], toByteOffset: px * step, as: UInt32.self)
                }
                if maxIndex >= entries { badIndex = maxIndex; return }
            }
        }
        if badIndex >= 0 { throw .paletteIndexOutOfRange(index: badIndex, paletteSize: entries) }
    }

    /// Everything else (1/2/4/16-bit gray, 16-bit colour, 16-bit output): sample by sample.
    private func expandGeneral(pass: PNGHeader.Pass, data: UnsafePointer<UInt8>, into out: UnsafeMutablePointer<UInt8>) {
        let depth = header.bitDepth
        let channels = header.channels
        let mask = (1 << depth) - 1
        // Multiplier taking a raw sample to 16 bits by bit replication.
        let scale: Int
        switch depth {
        case 1: scale = 0xFFFF
        case 2: scale = 0x5555
        case 4: scale = 0x1111
        case 8: scale = 0x0101
        default: scale = 1
        }
        let key = colorKey
        let width = header.width
        let bytesOut = sixteenBit ? 8 : 4
        for py in 0..<pass.height {
            let row = data + py * (pass.rowBytes + 1) + 1
            let y = pass.y0 + py * pass.dy
            var o = out + (y * width + pass.x0) * bytesOut
            let step = pass.dx * bytesOut
            for px in 0..<pass.width {
                var raw = (0, 0, 0, 0)
                for c in 0..<channels {
                    let i = px * channels + c
                    let v: Int
                    switch depth {
                    case 16: v = Int(row[2 * i]) << 8 | Int(row[2 * i + 1])
                    case 8: v = Int(row[i])
                    default:
                        let bit = i * depth
                        v = (Int(row[bit >> 3]) >> (8 - depth - (bit & 7))) & mask
                    }
                    switch c {
                    case 0: raw.0 = v
                    case 1: raw.1 = v
                    case 2: raw.2 = v
                    default: raw.3 = v
                    }
                }
                let r, g, b, a: Int
                switch header.colorType {
                case 0:
                    r = raw.0 * scale; g = r; b = r
                    a = (key.map { $0.0 == raw.0 } ?? false) ? 0 : 0xFFFF
                case 4:
                    r = raw.0 * scale; g = r; b = r; a = raw.1 * scale
                case 2:
                    r = raw.0 * scale; g = raw.1 * scale; b = raw.2 * scale
                    a = (key.map { $0.0 == raw.0 && $0.1 == raw.1 && $0.2 == raw.2 } ?? false) ? 0 : 0xFFFF
                default:
                    r = raw.0 * scale; g = raw.1 * scale; b = raw.2 * scale; a = raw.3 * scale
                }
                if sixteenBit {
                    o[0] = UInt8(r >> 8); o[1] = UInt8(r & 0xFF); o[2] = UInt8(g >> 8); o[3] = UInt8(g & 0xFF)
                    o[4] = UInt8(b >> 8); o[5] = UInt8(b & 0xFF); o[6] = UInt8(a >> 8); o[7] = UInt8(a & 0xFF)
                } else {
                    o[0] = UInt8(r >> 8); o[1] = UInt8(g >> 8); o[2] = UInt8(b >> 8); o[3] = UInt8(a >> 8)
                }
                o += step
            }
        }
    }
}
