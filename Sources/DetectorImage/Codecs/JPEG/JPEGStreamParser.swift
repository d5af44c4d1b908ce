import DetectorZlib
import DetectorPlatform
/// Walks the marker segments of a JPEG file, keeps the tables, decodes every scan into
/// coefficient planes, and stops at EOI. Pixels are made afterwards (`JPEGPixelAssembler`).
///
/// `data` must stay valid while the parser runs (the caller holds the array).
final class JPEGStreamParser {
    let data: UnsafePointer<UInt8>
    let count: Int
    let maxPixels: Int

    var quantTables: [[Int32]?] = [nil, nil, nil, nil]
    var dcTables: [JPEGHuffmanDecoder?] = [nil, nil, nil, nil]
    var acTables: [JPEGHuffmanDecoder?] = [nil, nil, nil, nil]
    var frame: JPEGFrame?
    /// The coefficients of every component: progressive frames from SOF on; sequential frames
    /// from their first scan that is not streamed.
    var planes: [JPEGCoefficientPlane] = []
    /// Whether a sequential frame whose first scan holds every component may be streamed:
    /// each MCU row's blocks go through the IDCT as soon as they are decoded, into
    /// `streamedSamples`, without whole-image coefficient planes.
    let allowsStreaming: Bool
    /// The sample planes of a streamed scan (one per component, `blocksPerRow * 8` bytes per
    /// row, `blockRows * 8` rows), or empty. Owned here, freed on deinit.
    var streamedSamples: [UnsafeMutablePointer<UInt8>] = []
    /// The RGB pixels of a streamed YCbCr scan, converted while it decoded (`JPEGRowPipeline`), or nil.
    var pipelinedPixels: [UInt8]?
    /// Progressive frames: what the scans so far coded of each component (for smoothing).
    var progress = JPEGCoefficientProgress(componentCount: 0)
    var restartInterval = 0
    var sawJFIF = false
    var adobeTransform: Int?
    var exif: [UInt8]?
    var scanCount = 0

    init(data: UnsafePointer<UInt8>, count: Int, maxPixels: Int, allowsStreaming: Bool = true) {
        self.data = data
        self.count = count
        self.maxPixels = maxPixels
        self.allowsStreaming = allowsStreaming
    }

    deinit { for plane in streamedSamples { plane.deallocate() } }

    /// Thrown when a scan follows a streamed one (a sequential file with more scans than its
    /// first, all-component scan): the coefficients it would refine are gone, so the file is
    /// decoded again without streaming. Never leaves `JPEGDecoder`.
    struct ScanAfterStreamedScan: Error {}

    // MARK: byte access (bounds-checked)

    func byte(_ offset: Int, _ context: @autoclosure () -> String) throws -> Int {
        guard offset >= 0, offset < count else { throw JPEGError.truncated(offset: count, context: context()) }
        return Int(data[offset])
    }

    func uint16(_ offset: Int, _ context: @autoclosure () -> String) throws -> Int {
        let hi = try byte(offset, context())
        let lo = try byte(offset + 1, context())
        return (hi << 8) | lo
    }

    // MARK: marker walk

    /// Parses the whole file. Throws on the first structural problem.
    func run() throws {
        guard count >= 2, data[0] == 0xFF, data[1] == 0xD8 else {
            if count == 0 { throw JPEGError.truncated(offset: 0, context: "before the SOI marker: the file is empty") }
            throw JPEGError.notJPEG
        }
        var position = 2
        while true {
            // A marker: FF, any number of fill FFs, then the code.
            guard position < count else {
                throw JPEGError.truncated(offset: count, context: "before the EOI marker")
            }
            guard data[position] == 0xFF else {
                throw JPEGError.malformed(offset: position, reason: "expected a marker but found byte 0x\(String(data[position], radix: 16, uppercase: true))")
            }
            var codeAt = position + 1
            while codeAt < count && data[codeAt] == 0xFF { codeAt += 1 }
            let code = try byte(codeAt, "inside a marker")
            let markerStart = codeAt - 1
            switch code {
            case 0xD9:   // EOI
                guard frame != nil, scanCount > 0 else { throw JPEGError.noImage(offset: markerStart) }
                return
            case 0xD0...0xD7, 0x01:
                // RSTn / TEM outside a scan (e.g. a restart marker left by resynchronisation):
                // ignored, and so are the entropy-coded bytes after it, as libjpeg does.
                position = try nextMarker(from: codeAt + 1)
                continue
            case 0xD8:
                throw JPEGError.malformed(offset: markerStart, reason: "second SOI marker inside the file")
            case 0x00:
                throw JPEGError.malformed(offset: markerStart, reason: "FF 00 where a marker must be")
            default:
                break
            }
            // Every other marker has a length that counts itself.
            let length = try uint16(codeAt + 1, "inside the length of marker 0x\(String(code, radix: 16))")
            guard length >= 2 else {
                // A segment libjpeg skips (APPn, COM, DNL) with a bogus length 0 or 1: libjpeg-turbo
                // reads the two length bytes, skips nothing more, and resynchronises on the next
                // marker (warning of extraneous bytes); segments it parses fail on the length.
                if (0xE0...0xEF).contains(code) || code == 0xFE || code == 0xDC {
                    position = try nextMarker(from: codeAt + 3)
                    continue
                }
                throw JPEGError.malformed(offset: codeAt + 1, reason: "segment length \(length) is less than 2")
            }
            let payload = codeAt + 3
            let segmentEnd = codeAt + 1 + length
            guard segmentEnd <= count else {
                throw JPEGError.truncated(offset: count, context: "inside a segment of marker 0x\(String(code, radix: 16, uppercase: true)) that claims \(length) bytes")
            }
            switch code {
            case 0xC0, 0xC1, 0xC2:
                try parseFrame(at: payload, end: segmentEnd, progressive: code == 0xC2)
            case 0xC3:
                throw JPEGError.unsupported(offset: markerStart, feature: "lossless JPEG (SOF3)")
            case 0xC5, 0xC6, 0xC7:
                throw JPEGError.unsupported(offset: markerStart, feature: "hierarchical JPEG (SOF\(code - 0xC0))")
            case 0xC9, 0xCA, 0xCB, 0xCD, 0xCE, 0xCF:
                throw JPEGError.unsupported(offset: markerStart, feature: "arithmetic coding (SOF\(code - 0xC0))")
            case 0xC8:
                throw JPEGError.unsupported(offset: markerStart, feature: "JPEG extension frame (JPG marker)")
            case 0xC4:
                try parseHuffmanTables(at: payload, end: segmentEnd)
            case 0xDB:
                try parseQuantTables(at: payload, end: segmentEnd)
            case 0xDD:
                guard length == 4 else {
                    throw JPEGError.malformed(offset: markerStart, reason: "DRI segment length is \(length), not 4")
                }
                restartInterval = try uint16(payload, "inside DRI")
            case 0xDA:
                let scan = try parseScanHeader(at: payload, end: segmentEnd, markerStart: markerStart)
                position = try decodeScan(scan, dataStart: segmentEnd)
                scanCount += 1
                continue
            case 0xE0...0xEF:
                parseApplicationSegment(code: code, payload: payload, end: segmentEnd)
            case 0xFE, 0xCC, 0xDC, 0xDE, 0xDF:
                break   // COM, DAC, DNL, DHP, EXP: skipped
            default:
                throw JPEGError.malformed(offset: markerStart, reason: "unknown marker 0x\(String(code, radix: 16, uppercase: true))")
            }
            position = segmentEnd
        }
    }

    /// APP0 JFIF, APP1 Exif (the first one), APP14 Adobe; everything else is skipped.
    func parseApplicationSegment(code: Int, payload: Int, end: Int) {
        let length = end - payload
        func hasPrefix(_ bytes: [UInt8]) -> Bool {
            guard length >= bytes.count else { return false }
            for (i, b) in bytes.enumerated() where data[payload + i] != b { return false }
            return true
        }
        switch code {
        case 0xE0:
            if hasPrefix([0x4A, 0x46, 0x49, 0x46, 0x00]) { sawJFIF = true }
        case 0xE1:
            if exif == nil, hasPrefix([0x45, 0x78, 0x69, 0x66, 0x00, 0x00]) {
                exif = Array(UnsafeBufferPointer(start: data + payload + 6, count: length - 6))
            }
        case 0xEE:
            if length >= 12, hasPrefix([0x41, 0x64, 0x6F, 0x62, 0x65]) {
                adobeTransform = Int(data[payload + 11])
            }
        default:
            break
        }
    }

    // MARK: tables

    func parseQuantTables(at start: Int, end: Int) throws {
        var p = start
        while p < end {
            let pqtq = Int(data[p])
            let precision = pqtq >> 4, id = pqtq & 15
            guard precision <= 1 else {
                throw JPEGError.malformed(offset: p, reason: "DQT precision \(precision) (only 0 = 8-bit and 1 = 16-bit exist)")
            }
            guard id <= 3 else {
                throw JPEGError.malformed(offset: p, reason: "DQT defines table id \(id) (valid ids are 0...3)")
            }
            let size = precision == 0 ? 64 : 128
            guard p + 1 + size <= end else {
                throw JPEGError.malformed(offset: p, reason: "DQT table \(id) runs past the end of its segment")
            }
            var table = [Int32](repeating: 0, count: 64)
            for k in 0..<64 {
                let value = precision == 0 ? Int32(data[p + 1 + k])
                    : Int32(data[p + 1 + 2 * k]) << 8 | Int32(data[p + 2 + 2 * k])
                table[jpegNaturalOrder[k]] = value
            }
            quantTables[id] = table
            p += 1 + size
        }
    }

    func parseHuffmanTables(at start: Int, end: Int) throws {
        var p = start
        while p < end {
            let tcth = Int(data[p])
            let tableClass = tcth >> 4, id = tcth & 15
            guard tableClass <= 1, id <= 3 else {
                throw JPEGError.malformed(offset: p, reason: "DHT class \(tableClass) / id \(id) is invalid (class 0...1, id 0...3)")
            }
            guard p + 17 <= end else {
                throw JPEGError.malformed(offset: p, reason: "DHT table runs past the end of its segment")
            }
            var counts = [Int](repeating: 0, count: 16)
            for i in 0..<16 { counts[i] = Int(data[p + 1 + i]) }
            let total = counts.reduce(0, +)
            guard total <= 256 else {
                throw JPEGError.malformed(offset: p, reason: "DHT table holds \(total) codes (at most 256 allowed)")
            }
            guard p + 17 + total <= end else {
                throw JPEGError.malformed(offset: p, reason: "DHT table symbols run past the end of its segment")
            }
            let symbols = Array(UnsafeBufferPointer(start: data + p + 17, count: total))
            let decoder = try JPEGHuffmanDecoder(spec: JPEGHuffmanSpec(counts: counts, symbols: symbols),
                                                 isDC: tableClass == 0, offset: p)
            if tableClass == 0 { dcTables[id] = decoder } else { acTables[id] = decoder }
            p += 17 + total
        }
    }

    // MARK: frame

    func parseFrame(at p: Int, end: Int, progressive: Bool) throws {
        guard frame == nil else { throw JPEGError.malformed(offset: p - 4, reason: "second SOF marker") }
        guard end - p >= 6 else { throw JPEGError.malformed(offset: p, reason: "SOF segment is too short") }
        let precision = Int(data[p])
        let height = Int(data[p + 1]) << 8 | Int(data[p + 2])
        let width = Int(data[p + 3]) << 8 | Int(data[p + 4])
        let componentCount = Int(data[p + 5])
        guard precision == 8 else {
            throw JPEGError.unsupported(offset: p, feature: "\(precision)-bit samples (only 8-bit is decoded)")
        }
        guard end - p == 6 + 3 * componentCount else {
            throw JPEGError.malformed(offset: p, reason: "SOF length does not match its \(componentCount) components")
        }
        guard height > 0 else {
            throw JPEGError.unsupported(offset: p, feature: "image height 0 (height defined by a DNL marker)")
        }
        guard width > 0 else { throw JPEGError.malformed(offset: p, reason: "SOF image width is 0") }
        guard componentCount == 1 || componentCount == 3 || componentCount == 4 else {
            throw JPEGError.unsupported(offset: p, feature: "\(componentCount) colour components (1, 3 or 4 are decoded)")
        }
        let (pixels, overflow) = width.multipliedReportingOverflow(by: height)
        guard !overflow, pixels <= maxPixels else {
            throw JPEGError.tooManyPixels(width: width, height: height, limit: maxPixels)
        }
        var components: [JPEGComponent] = []
        for i in 0..<componentCount {
            let q = p + 6 + 3 * i
            let hv = Int(data[q + 1])
            let h = hv >> 4, v = hv & 15
            let tq = Int(data[q + 2])
            guard (1...4).contains(h), (1...4).contains(v) else {
                throw JPEGError.malformed(offset: q, reason: "component \(i) has sampling factors \(h)x\(v) (each must be 1...4)")
            }
            guard tq <= 3 else {
                throw JPEGError.malformed(offset: q, reason: "component \(i) uses quantization table \(tq) (valid ids are 0...3)")
            }
            components.append(JPEGComponent(id: Int(data[q]), h: h, v: v, quantTableIndex: tq,
                                            width: 0, height: 0, storedBlocksPerRow: 0, storedBlockRows: 0,
                                            blocksPerRow: 0, blockRows: 0, quant: nil))
        }
        let maxH = components.map(\.h).max() ?? 1
        let maxV = components.map(\.v).max() ?? 1
        for c in components where maxH % c.h != 0 || maxV % c.v != 0 {
            throw JPEGError.unsupported(offset: p, feature: "fractional sampling ratio \(maxH)/\(c.h) x \(maxV)/\(c.v)")
        }
        let mcusPerRow = jpegCeilDiv(width, 8 * maxH)
        let mcuRows = jpegCeilDiv(height, 8 * maxV)
        for i in components.indices {
            var c = components[i]
            c.width = jpegCeilDiv(width * c.h, maxH)
            c.height = jpegCeilDiv(height * c.v, maxV)
            c.blocksPerRow = jpegCeilDiv(c.width, 8)
            c.blockRows = jpegCeilDiv(c.height, 8)
            c.storedBlocksPerRow = mcusPerRow * c.h
            c.storedBlockRows = mcuRows * c.v
            components[i] = c
        }
        let newFrame = JPEGFrame(width: width, height: height, progressive: progressive, components: components,
                                 maxH: maxH, maxV: maxV, mcusPerRow: mcusPerRow, mcuRows: mcuRows)
        frame = newFrame
        if progressive { allocatePlanes() }
        progress = JPEGCoefficientProgress(componentCount: components.count)
    }

    /// Allocates the zeroed coefficient planes of every component (once).
    func allocatePlanes() {
        guard planes.isEmpty, let frame else { return }
        planes = frame.components.map { JPEGCoefficientPlane(blocksPerRow: $0.storedBlocksPerRow, blockRows: $0.storedBlockRows) }
    }

    // MARK: scan header

    func parseScanHeader(at p: Int, end: Int, markerStart: Int) throws -> JPEGScanHeader {
        guard var frame else { throw JPEGError.malformed(offset: markerStart, reason: "SOS before any SOF") }
        guard end - p >= 1 else { throw JPEGError.malformed(offset: p, reason: "SOS segment is too short") }
        let n = Int(data[p])
        guard n >= 1, n <= 4, end - p == 4 + 2 * n else {
            throw JPEGError.malformed(offset: p, reason: "SOS names \(n) components, or its length does not match")
        }
        var members: [JPEGScanHeader.Member] = []
        var blocksInMCU = 0
        for i in 0..<n {
            let id = Int(data[p + 1 + 2 * i])
            let tables = Int(data[p + 2 + 2 * i])
            guard let index = frame.components.firstIndex(where: { $0.id == id }) else {
                throw JPEGError.malformed(offset: p + 1 + 2 * i, reason: "SOS names component id \(id), which the frame does not have")
            }
            guard !members.contains(where: { $0.componentIndex == index }) else {
                throw JPEGError.malformed(offset: p + 1 + 2 * i, reason: "SOS names component id \(id) twice")
            }
            let dc = tables >> 4, ac = tables & 15
            guard dc <= 3, ac <= 3 else {
                throw JPEGError.malformed(offset: p + 2 + 2 * i, reason: "SOS selects Huffman table \(dc)/\(ac) (valid ids are 0...3)")
            }
            members.append(.init(componentIndex: index, dcTable: dc, acTable: ac))
            blocksInMCU += frame.components[index].h * frame.components[index].v
        }
        if n > 1 && blocksInMCU > 10 {
            throw JPEGError.malformed(offset: p, reason: "interleaved scan has \(blocksInMCU) blocks per MCU (at most 10)")
        }
        let q = p + 1 + 2 * n
        let scan = JPEGScanHeader(members: members, spectralStart: Int(data[q]), spectralEnd: Int(data[q + 1]),
                                  approximationHigh: Int(data[q + 2]) >> 4, approximationLow: Int(data[q + 2]) & 15)
        if frame.progressive {
            let ss = scan.spectralStart, se = scan.spectralEnd
            if ss == 0 {
                guard se == 0 else { throw JPEGError.malformed(offset: q, reason: "progressive DC scan with spectral end \(se)") }
            } else {
                guard ss <= se, se <= 63, n == 1 else {
                    throw JPEGError.malformed(offset: q, reason: "progressive AC scan with band \(ss)...\(se) over \(n) components")
                }
            }
            if scan.approximationHigh != 0 && scan.approximationLow != scan.approximationHigh - 1 {
                throw JPEGError.malformed(offset: q + 2, reason: "successive approximation Ah=\(scan.approximationHigh) Al=\(scan.approximationLow)")
            }
            guard scan.approximationLow <= 13 else {
                throw JPEGError.malformed(offset: q + 2, reason: "successive approximation Al=\(scan.approximationLow) exceeds 13")
            }
        }
        // Latch each component's quantization table at its first scan.
        for m in members where frame.components[m.componentIndex].quant == nil {
            let tq = frame.components[m.componentIndex].quantTableIndex
            guard let table = quantTables[tq] else {
                throw JPEGError.malformed(offset: markerStart, reason: "quantization table \(tq) used by component id \(frame.components[m.componentIndex].id) was never defined")
            }
            frame.components[m.componentIndex].quant = table
        }
        self.frame = frame
        // The Huffman tables the scan needs must exist. Sequential frames fall back to the
        // Annex K.3 tables for ids 0 and 1 (libjpeg-turbo's Motion-JPEG behaviour).
        if !frame.progressive {
            for m in members {
                if dcTables[m.dcTable] == nil, let spec = JPEGStandardHuffmanTables.spec(isDC: true, id: m.dcTable) {
                    dcTables[m.dcTable] = try JPEGHuffmanDecoder(spec: spec, isDC: true, offset: markerStart)
                }
                if acTables[m.acTable] == nil, let spec = JPEGStandardHuffmanTables.spec(isDC: false, id: m.acTable) {
                    acTables[m.acTable] = try JPEGHuffmanDecoder(spec: spec, isDC: false, offset: markerStart)
                }
            }
        }
        let isDCScan = scan.spectralStart == 0
        let needsDC = !frame.progressive || (isDCScan && scan.approximationHigh == 0)
        let needsAC = !frame.progressive || !isDCScan
        for m in members {
            if needsDC && dcTables[m.dcTable] == nil || needsAC && acTables[m.acTable] == nil {
                throw JPEGError.unsupported(offset: markerStart, feature: "scan uses a Huffman table that no DHT segment defined (only sequential frames have defaults, for table ids 0 and 1)")
            }
        }
        return scan
    }
}
