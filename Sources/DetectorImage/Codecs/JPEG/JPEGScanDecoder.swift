import DetectorZlib
import DetectorPlatform
/// Entropy decoding of one scan (T.81 Annex F for sequential, G.1.2 for progressive) into the
/// coefficient planes, with restart-marker handling.
///
/// Damage is handled as libjpeg handles it (Pillow shows what libjpeg makes): when a scan's
/// data ends at a marker before the scan is complete, the MCU that ran out is decoded with zero
/// bits and the MCUs after it are left as they are (zero, or what earlier scans stored) until a
/// restart marker brings fresh data; a restart marker with the wrong number is resynchronised
/// as `jpeg_resync_to_restart` does. A file that ends without a marker (no EOI) and a bit
/// pattern that is no Huffman code are errors.
extension JPEGStreamParser {
    /// What the block loop needs of one scan component, as plain values and pointers.
    struct ScanMember {
        var coefficients: UnsafeMutablePointer<Int16>
        var blocksPerRow: Int
        var h: Int
        var v: Int
        var dc: JPEGHuffmanLookup
        var ac: JPEGHuffmanLookup
        var predictor: Int
        /// Block rows the coefficients advance per MCU row: `v`, or 0 when a streamed scan
        /// keeps only the current MCU row.
        var rowStep: Int
    }

    enum ScanKind { case sequential, dcFirst, dcRefine, acFirst, acRefine }

    /// Decodes the scan whose entropy-coded data starts at `dataStart`; returns the position
    /// of the marker that follows the scan.
    func decodeScan(_ scan: JPEGScanHeader, dataStart: Int) throws -> Int {
        guard let frame else { throw JPEGError.malformed(offset: dataStart, reason: "SOS before any SOF") }
        var reader = JPEGBitReader(data: data, end: count, position: dataStart)
        let interleaved = scan.members.count > 1
        // MCU grid of this scan.
        let mcusPerRow: Int, mcuRows: Int
        if interleaved {
            mcusPerRow = frame.mcusPerRow
            mcuRows = frame.mcuRows
        } else {
            let c = frame.components[scan.members[0].componentIndex]
            mcusPerRow = c.blocksPerRow
            mcuRows = c.blockRows
        }
        guard streamedSamples.isEmpty else { throw ScanAfterStreamedScan() }
        // A sequential frame's first scan holding every component is streamed (see `allowsStreaming`).
        let streaming = allowsStreaming && !frame.progressive && scanCount == 0
            && scan.members.count == frame.components.count
        // With a second core, a streamed YCbCr scan's IDCT and colour conversion run there,
        // behind the decoding, on `pipelineSlots` MCU rows of coefficients in turn.
        let pipelineBytes = streaming ? pipelineByteCount(frame: frame, scan: scan) : nil
        let stream = streaming ? StreamedRows(frame: frame, scan: scan, slots: pipelineBytes == nil ? 1 : min(pipelineSlots, mcuRows)) : nil
        if let stream { streamedSamples = stream.samples } else { allocatePlanes() }
        let empty = JPEGHuffmanDecoder()
        let masks = JPEGZigZagMask.shared
        // The decoder objects stay alive (held by `self` and `empty`) for the whole scan.
        let members = UnsafeMutablePointer<ScanMember>.allocate(capacity: scan.members.count)
        defer { members.deallocate() }
        for (i, m) in scan.members.enumerated() {
            let component = frame.components[m.componentIndex]
            let v = interleaved ? component.v : 1
            let coefficients: UnsafeMutablePointer<Int16>, blocksPerRow: Int
            if let stream {
                coefficients = stream.rows[i]
                blocksPerRow = component.storedBlocksPerRow
            } else {
                coefficients = planes[m.componentIndex].pointer
                blocksPerRow = planes[m.componentIndex].blocksPerRow
            }
            members.advanced(by: i).initialize(to: ScanMember(
                coefficients: coefficients, blocksPerRow: blocksPerRow,
                h: interleaved ? component.h : 1, v: v,
                dc: (dcTables[m.dcTable] ?? empty).pointers, ac: (acTables[m.acTable] ?? empty).pointers,
                predictor: 0, rowStep: stream == nil ? v : 0))
        }
        let memberCount = scan.members.count
        let restartInterval = self.restartInterval
        var eobRun = 0
        var restartsLeft = restartInterval
        var expectedRestart = 0
        let ss = scan.spectralStart, se = scan.spectralEnd
        let ah = scan.approximationHigh, al = scan.approximationLow

        let kind: ScanKind
        if !frame.progressive { kind = .sequential }
        else if ss == 0 { kind = ah == 0 ? .dcFirst : .dcRefine }
        else { kind = ah == 0 ? .acFirst : .acRefine }
        if frame.progressive {
            progress.startScan(componentIndices: scan.members.map(\.componentIndex), spectralStart: ss,
                               spectralEnd: se, low: al)
        }
        // Block rows per iMCU row of this scan's MCU rows (libjpeg's `input_iMCU_row`).
        let mcuRowsPerIMCURow = interleaved ? 1 : frame.components[scan.members[0].componentIndex].v
        // libjpeg's `insufficient_data`: the data ran out at a marker; MCUs are skipped.
        var insufficient = false
        var lastGoodIMCURow = progress.lastGoodIMCURow
        defer { progress.lastGoodIMCURow = lastGoodIMCURow }

        // (The pipeline's closures below, not local functions: captured state would be boxed
        // and checked for exclusive access on every symbol.)
        var pixels = [UInt8](unsafeUninitializedCapacity: pipelineBytes ?? 0) { _, initialized in
            initialized = pipelineBytes ?? 0
        }
        try pixels.withUnsafeMutableBufferPointer { pixelBuffer in
            var pipeline: JPEGScanPipeline?
            if let stream, pipelineBytes != nil, let out = pixelBuffer.baseAddress {
                let upsamplers = JPEGPixelAssembler.upsamplers(frame: frame, planes: stream.samples)
                let width = frame.width
                pipeline = JPEGScanPipeline(mcuRows: mcuRows, slots: stream.slots, rowsPerMCURow: 8 * frame.maxV,
                                            height: frame.height, transform: { row in stream.transformRow(row) },
                                            convert: { rows in
                                                JPEGPixelAssembler.convertYCbCrRows(rows, upsamplers: upsamplers, width: width,
                                                                                    pixels: out)
                                            })
                pipeline?.start()
            }
            var complete = false
            defer { pipeline?.finish(complete: complete) }
            // The MCU rows; a streamed scan publishes the output rows whose samples are complete
            // (a row needs the chroma row below it: one MCU row behind).
            try withExtendedLifetime(empty) {
                try jpegNaturalOrder.withUnsafeBufferPointer { naturalBuffer in
                    guard let natural = naturalBuffer.baseAddress else { return }
                    for mcuY in 0..<mcuRows {
                        if let stream, let pipeline {
                            pipeline.waitForSlot(mcuY)
                            for m in 0..<memberCount { members[m].coefficients = stream.coefficients(member: m, mcuY: mcuY) }
                        }
                        let iMCURow = mcuY / mcuRowsPerIMCURow
                        for mcuX in 0..<mcusPerRow {
                            // libjpeg counts the row before it reads a due restart marker.
                            if !insufficient { lastGoodIMCURow = iMCURow }
                            if restartInterval > 0 {
                                if restartsLeft == 0 {
                                    if try processRestart(&reader, expected: expectedRestart) { insufficient = false }
                                    expectedRestart = (expectedRestart + 1) & 7
                                    for i in 0..<memberCount { members[i].predictor = 0 }
                                    eobRun = 0
                                    restartsLeft = restartInterval
                                }
                                restartsLeft -= 1
                            }
                            if insufficient { continue }
                            for m in 0..<memberCount {
                                let member = members + m
                                let h = member.pointee.h, v = member.pointee.v
                                for by in 0..<v {
                                    let rowBase = member.pointee.coefficients
                                        + ((mcuY &* member.pointee.rowStep &+ by) &* member.pointee.blocksPerRow &+ mcuX &* h) &* 64
                                    for bx in 0..<h {
                                        let block = rowBase + bx &* 64
                                        switch kind {
                                        case .sequential:
                                            try decodeSequentialBlock(&reader, dc: member.pointee.dc, ac: member.pointee.ac,
                                                                      block: block, predictor: &member.pointee.predictor,
                                                                      natural: natural)
                                        case .dcFirst:
                                            let fastDC = reader.fastAC(member.pointee.dc)
                                            if fastDC != 0 {
                                                member.pointee.predictor = member.pointee.predictor &+ Int(fastDC &>> 16)
                                            } else {
                                                let s = try reader.decode(member.pointee.dc)
                                                member.pointee.predictor = member.pointee.predictor &+ reader.receiveExtend(s)
                                            }
                                            block[0] = Int16(truncatingIfNeeded: member.pointee.predictor &<< al)
                                        case .dcRefine:
                                            if reader.bit() != 0 { block[0] |= Int16(truncatingIfNeeded: 1 << al) }
                                        case .acFirst:
                                            try decodeACFirst(&reader, ac: member.pointee.ac, block: block, start: ss, end: se,
                                                              low: al, eobRun: &eobRun, natural: natural)
                                        case .acRefine:
                                            try decodeACRefine(&reader, ac: member.pointee.ac, block: block, start: ss, end: se,
                                                               low: al, eobRun: &eobRun, natural: natural, masks: masks)
                                        }
                                    }
                                }
                            }
                            if reader.overran { insufficient = true }
                        }
                        try checkReader(reader)
                        if let pipeline { pipeline.decoded(mcuY + 1) } else { stream?.transformRow(mcuY) }
                    }
                }
            }
            complete = pipeline != nil
        }
        if pipelineBytes != nil { pipelinedPixels = pixels }
        try checkReader(reader)
        // Find the marker after the scan (skipping any extraneous bytes, as libjpeg does).
        return try nextMarker(from: reader.position)
    }

    /// MCU rows of coefficients a pipelined scan holds at once, at most (the decoding thread
    /// waits, or transforms a row itself, when it is that far ahead of the IDCT); never more
    /// than the scan has, so a wide image of few rows does not hold 8 rows of coefficients.
    var pipelineSlots: Int { 8 }

    /// The RGB byte count when a streamed scan's rows can be converted during the decode: a
    /// second core, three components that make YCbCr with the markers seen so far (the
    /// assembler checks the colour model again at the end), a size the image limits allow.
    func pipelineByteCount(frame: JPEGFrame, scan: JPEGScanHeader) -> Int? {
        // From 16,384 pixels (128 x 128) up: the worker paid off on every size measured on the
        // Xeon (30,000 to 323,000 pixels, 4:2:0 and 4:4:4: 0.71-0.95x the one-thread decode;
        // the 400,000-pixel floor chosen before left burger.jpg and multi_objects.jpg on one thread).
        guard JPEGRowPipeline.availableCores > 1, frame.components.count == 3, scan.members.count == 3,
              frame.width * frame.height >= 16_384,
              JPEGColorModel.decide(componentCount: 3, componentIDs: frame.components.map(\.id), jfif: sawJFIF,
                                    adobeTransform: adobeTransform) == .ycbcr else { return nil }
        return try? ImageBuffer.byteCount(width: frame.width, height: frame.height, format: .rgb8, maxPixels: maxPixels)
    }

    /// A reader that ran past the end of the file: there is no EOI (or any marker) after the scan.
    func checkReader(_ reader: JPEGBitReader) throws {
        if reader.reachedEnd {
            throw JPEGError.truncated(offset: count, context: "inside or right after the entropy-coded data of a scan (no EOI marker)")
        }
    }

    /// The position of the next marker's `FF` at or after `start` (a FF followed by a byte that
    /// is neither 00 nor FF).
    func nextMarker(from start: Int) throws -> Int {
        var p = start
        while p + 1 < count {
            if data[p] == 0xFF {
                let next = data[p + 1]
                if next != 0x00 && next != 0xFF { return p }
                if next == 0x00 { p += 2; continue }
            }
            p += 1
        }
        throw JPEGError.truncated(offset: count, context: "after a scan, before the next marker (no EOI)")
    }

    /// Handles the restart marker due before the next MCU: drops the buffered bits and reads
    /// RST`expected`, or resynchronises as libjpeg's `jpeg_resync_to_restart` does when the next
    /// marker is another one. Returns whether a marker was consumed (fresh data follows); when
    /// the marker is left for later, the reader stays against it and supplies zero bits.
    func processRestart(_ reader: inout JPEGBitReader, expected: Int) throws -> Bool {
        try checkReader(reader)
        var marker = try nextMarker(from: reader.position)
        while true {
            let code = Int(data[marker + 1])
            switch Self.resyncAction(code: code, expected: expected) {
            case .consume:
                reader.reset(at: marker + 2)
                return true
            case .skipToNextMarker:
                marker = try nextMarker(from: marker + 2)
            case .leave:
                reader.reset(at: marker)
                return false
            }
        }
    }

    enum ResyncAction { case consume, skipToNextMarker, leave }

    /// libjpeg's choice for marker `code` where RST`expected` is due: the expected marker, or
    /// one too far from it to tell, is consumed; the next two restarts and non-restart markers
    /// (EOI, SOS, ...) are left, making the current interval empty; the two previous restarts
    /// and codes below SOF0 (not markers libjpeg knows) are skipped over.
    static func resyncAction(code: Int, expected: Int) -> ResyncAction {
        if code < 0xC0 { return .skipToNextMarker }
        guard (0xD0...0xD7).contains(code) else { return .leave }
        let n = code - 0xD0
        if n == (expected + 1) & 7 || n == (expected + 2) & 7 { return .leave }
        if n == (expected + 7) & 7 || n == (expected + 6) & 7 { return .skipToNextMarker }
        return .consume
    }

    @inline(__always)
    func decodeSequentialBlock(_ readerInOut: inout JPEGBitReader, dc: JPEGHuffmanLookup, ac: JPEGHuffmanLookup,
                               block: UnsafeMutablePointer<Int16>, predictor: inout Int,
                               natural: UnsafePointer<Int>) throws {
        // A local copy of the reader: the caller's lives in memory (captured by the scan's
        // closures), which put a store after every symbol; this one stays in registers.
        var reader = readerInOut
        defer { readerInOut = reader }
        // The DC difference: one lookup when code and extra bits fit the lookahead.
        let fastDC = reader.fastAC(dc)
        if fastDC != 0 {
            predictor = predictor &+ Int(fastDC &>> 16)
        } else {
            let s = try reader.decode(dc)
            predictor = predictor &+ reader.receiveExtend(s)
        }
        block[0] = Int16(truncatingIfNeeded: predictor)
        var k = 1
        while k < 64 {
            let fast = reader.fastAC(ac)
            if fast != 0 {
                let run = Int((fast &>> 8) & 0xFF)
                if run == JPEGHuffmanDecoder.endOfBlockRun { break }
                k &+= run
                block[natural[k]] = Int16(truncatingIfNeeded: fast &>> 16)
                k &+= 1
                continue
            }
            let rs = try reader.decode(ac)
            let run = rs &>> 4, size = rs & 15
            if size != 0 {
                k &+= run
                block[natural[k]] = Int16(truncatingIfNeeded: reader.receiveExtend(size))
                k &+= 1
            } else {
                if run != 15 { break }
                k &+= 16
            }
        }
    }

    @inline(__always)
    func decodeACFirst(_ readerInOut: inout JPEGBitReader, ac: JPEGHuffmanLookup, block: UnsafeMutablePointer<Int16>,
                       start: Int, end: Int, low: Int, eobRun: inout Int, natural: UnsafePointer<Int>) throws {
        if eobRun > 0 { eobRun &-= 1; return }
        var reader = readerInOut   // in registers (see `decodeSequentialBlock`)
        defer { readerInOut = reader }
        var k = start
        while k <= end {
            // A code and its extra bits within the lookahead: one table entry (as sequential).
            let fast = reader.fastAC(ac)
            if fast != 0 {
                let run = Int((fast &>> 8) & 0xFF)
                if run == JPEGHuffmanDecoder.endOfBlockRun { break }   // EOB: a run of one block (this one)
                k &+= run
                block[natural[k]] = Int16(truncatingIfNeeded: Int(fast &>> 16) &<< low)
                k &+= 1
                continue
            }
            let rs = try reader.decode(ac)
            let run = rs &>> 4, size = rs & 15
            if size != 0 {
                k &+= run
                block[natural[k]] = Int16(truncatingIfNeeded: reader.receiveExtend(size) &<< low)
            } else if run == 15 {
                k &+= 15
            } else {
                eobRun = 1 &<< run
                if run != 0 { eobRun &+= reader.bits(run) }
                eobRun &-= 1
                break
            }
            k &+= 1
        }
    }

    /// AC successive-approximation refinement, in libjpeg's order of operations (bits read in
    /// the same order, the same coefficients changed), walking the block's zig-zag nonzero mask:
    /// a run of zero-history coefficients is skipped by clearing mask bits, and only the nonzero
    /// coefficients passed read a correction bit. The mask, taken when the block starts, stays
    /// exact for the positions still ahead: refined values stay nonzero and a new value is placed
    /// behind the position reached.
    @inline(__always)
    func decodeACRefine(_ readerInOut: inout JPEGBitReader, ac: JPEGHuffmanLookup, block: UnsafeMutablePointer<Int16>,
                        start: Int, end: Int, low: Int, eobRun: inout Int, natural: UnsafePointer<Int>,
                        masks: JPEGZigZagMask) throws {
        var reader = readerInOut   // in registers (see `decodeSequentialBlock`)
        defer { readerInOut = reader }
        let p1 = Int16(truncatingIfNeeded: 1 << low)
        let m1 = Int16(truncatingIfNeeded: -1 << low)
        // Positions start...end (1 ≤ start ≤ end ≤ 63, checked with the scan header).
        let band = JPEGZigZagMask.below(end &+ 1) & ~JPEGZigZagMask.below(start)
        let nonzero = masks.nonzero(block) & band
        /// Reads one correction bit for each nonzero coefficient in `positions` (lowest first).
        @inline(__always) func refine(_ positions: UInt64, _ reader: inout JPEGBitReader) {
            var left = positions
            while left != 0 {
                let coefficient = block + natural[left.trailingZeroBitCount]
                left &= left &- 1
                let current = coefficient.pointee
                let bit = Int16(truncatingIfNeeded: reader.bit())
                // bit set and this bit of the value still clear: move away from zero by p1.
                let apply = (current & p1) == 0 ? 0 &- bit : 0
                coefficient.pointee = current &+ ((current >= 0 ? p1 : m1) & apply)
            }
        }
        var k = start
        if eobRun == 0 {
            while k <= end {
                let rs = try reader.decode(ac)
                let run = rs &>> 4
                var value: Int16 = 0
                let size = rs & 15
                if size != 0 {
                    value = reader.bit() != 0 ? p1 : m1
                } else if run != 15 {
                    eobRun = 1 &<< run
                    if run != 0 { eobRun &+= reader.bits(run) }
                    break
                }
                // The slot is the (run+1)-th zero-history position from k (end + 1 when the
                // band runs out first); the nonzero coefficients before it are refined.
                let ahead = band & ~JPEGZigZagMask.below(k)
                var zeros = ~nonzero & ahead
                var skip = run
                while skip > 0 && zeros != 0 { zeros &= zeros &- 1; skip &-= 1 }
                let slot = zeros == 0 ? end &+ 1 : zeros.trailingZeroBitCount
                refine(nonzero & ahead & JPEGZigZagMask.below(slot), &reader)
                k = slot
                if value != 0 {
                    block[natural[k]] = value
                }
                k &+= 1
            }
        }
        if eobRun > 0 {
            refine(nonzero & ~JPEGZigZagMask.below(k), &reader)
            eobRun &-= 1
        }
    }
}
