/// Entropy decoding of one scan (T.81 Annex F for sequential, G.1.2 for progressive) into the
/// coefficient planes, with restart-marker handling.
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
        let empty = JPEGHuffmanDecoder()
        // The decoder objects stay alive (held by `self` and `empty`) for the whole scan.
        let members = UnsafeMutablePointer<ScanMember>.allocate(capacity: scan.members.count)
        defer { members.deallocate() }
        for (i, m) in scan.members.enumerated() {
            let component = frame.components[m.componentIndex]
            let plane = planes[m.componentIndex]
            members.advanced(by: i).initialize(to: ScanMember(
                coefficients: plane.pointer, blocksPerRow: plane.blocksPerRow,
                h: interleaved ? component.h : 1, v: interleaved ? component.v : 1,
                dc: (dcTables[m.dcTable] ?? empty).pointers, ac: (acTables[m.acTable] ?? empty).pointers,
                predictor: 0))
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

        try withExtendedLifetime(empty) {
            try jpegNaturalOrder.withUnsafeBufferPointer { naturalBuffer in
                guard let natural = naturalBuffer.baseAddress else { return }
                for mcuY in 0..<mcuRows {
                    for mcuX in 0..<mcusPerRow {
                        if restartInterval > 0 {
                            if restartsLeft == 0 {
                                try processRestart(&reader, expected: expectedRestart)
                                expectedRestart = (expectedRestart + 1) & 7
                                for i in 0..<memberCount { members[i].predictor = 0 }
                                eobRun = 0
                                restartsLeft = restartInterval
                            }
                            restartsLeft -= 1
                        }
                        for m in 0..<memberCount {
                            let member = members + m
                            let h = member.pointee.h, v = member.pointee.v
                            for by in 0..<v {
                                let rowBase = member.pointee.coefficients
                                    + ((mcuY &* v &+ by) &* member.pointee.blocksPerRow &+ mcuX &* h) &* 64
                                for bx in 0..<h {
                                    let block = rowBase + bx &* 64
                                    switch kind {
                                    case .sequential:
                                        try decodeSequentialBlock(&reader, dc: member.pointee.dc, ac: member.pointee.ac,
                                                                  block: block, predictor: &member.pointee.predictor,
                                                                  natural: natural)
                                    case .dcFirst:
                                        let s = try reader.decode(member.pointee.dc)
                                        member.pointee.predictor = member.pointee.predictor &+ reader.receiveExtend(s)
                                        block[0] = Int16(truncatingIfNeeded: member.pointee.predictor &<< al)
                                    case .dcRefine:
                                        if reader.bit() != 0 { block[0] |= Int16(truncatingIfNeeded: 1 << al) }
                                    case .acFirst:
                                        try decodeACFirst(&reader, ac: member.pointee.ac, block: block, start: ss, end: se,
                                                          low: al, eobRun: &eobRun, natural: natural)
                                    case .acRefine:
                                        try decodeACRefine(&reader, ac: member.pointee.ac, block: block, start: ss, end: se,
                                                           low: al, eobRun: &eobRun, natural: natural)
                                    }
                                }
                            }
                        }
                    }
                    try checkReader(reader)
                }
            }
        }
        try checkReader(reader)
        // Find the marker after the scan (skipping any extraneous bytes, as libjpeg does).
        return try nextMarker(from: reader.position)
    }

    func checkReader(_ reader: JPEGBitReader) throws {
        if reader.reachedEnd {
            throw JPEGError.truncated(offset: count, context: "inside or right after the entropy-coded data of a scan (no EOI marker)")
        }
        if reader.overran {
            throw JPEGError.corruptData(offset: reader.position, reason: "the scan needs more data than its segment holds")
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

    func processRestart(_ reader: inout JPEGBitReader, expected: Int) throws {
        try checkReader(reader)
        let marker = try nextMarker(from: reader.position)
        var codeAt = marker + 1
        while codeAt < count && data[codeAt] == 0xFF { codeAt += 1 }
        guard codeAt < count, Int(data[codeAt]) == 0xD0 + expected else {
            throw JPEGError.corruptData(offset: marker, reason: "expected restart marker RST\(expected)")
        }
        reader.reset(at: codeAt + 1)
    }

    @inline(__always)
    func decodeSequentialBlock(_ reader: inout JPEGBitReader, dc: JPEGHuffmanLookup, ac: JPEGHuffmanLookup,
                               block: UnsafeMutablePointer<Int16>, predictor: inout Int,
                               natural: UnsafePointer<Int>) throws {
        let s = try reader.decode(dc)
        predictor = predictor &+ reader.receiveExtend(s)
        block[0] = Int16(truncatingIfNeeded: predictor)
        var k = 1
        while k < 64 {
            let fast = reader.fastAC(ac)
            if fast != 0 {
                k &+= Int((fast &>> 8) & 0xFF)
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
    func decodeACFirst(_ reader: inout JPEGBitReader, ac: JPEGHuffmanLookup, block: UnsafeMutablePointer<Int16>,
                       start: Int, end: Int, low: Int, eobRun: inout Int, natural: UnsafePointer<Int>) throws {
        if eobRun > 0 { eobRun &-= 1; return }
        var k = start
        while k <= end {
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

    /// AC successive-approximation refinement, in libjpeg's order of operations.
    @inline(__always)
    func decodeACRefine(_ reader: inout JPEGBitReader, ac: JPEGHuffmanLookup, block: UnsafeMutablePointer<Int16>,
                        start: Int, end: Int, low: Int, eobRun: inout Int, natural: UnsafePointer<Int>) throws {
        let p1 = Int16(truncatingIfNeeded: 1 << low)
        let m1 = Int16(truncatingIfNeeded: -1 << low)
        var k = start
        if eobRun == 0 {
            while k <= end {
                let rs = try reader.decode(ac)
                var run = rs &>> 4
                var value: Int16 = 0
                let size = rs & 15
                if size != 0 {
                    value = reader.bit() != 0 ? p1 : m1
                } else if run != 15 {
                    eobRun = 1 &<< run
                    if run != 0 { eobRun &+= reader.bits(run) }
                    break
                }
                // Skip `run` zero-history coefficients, refining the nonzero ones passed.
                repeat {
                    let coefficient = block + natural[k]
                    let current = coefficient.pointee
                    if current != 0 {
                        if reader.bit() != 0 && (current & p1) == 0 {
                            coefficient.pointee = current >= 0 ? current &+ p1 : current &+ m1
                        }
                    } else {
                        run &-= 1
                        if run < 0 { break }
                    }
                    k &+= 1
                } while k <= end
                if value != 0 {
                    block[natural[k]] = value
                }
                k &+= 1
            }
        }
        if eobRun > 0 {
            while k <= end {
                let coefficient = block + natural[k]
                let current = coefficient.pointee
                if current != 0 {
                    if reader.bit() != 0 && (current & p1) == 0 {
                        coefficient.pointee = current >= 0 ? current &+ p1 : current &+ m1
                    }
                }
                k &+= 1
            }
            eobRun &-= 1
        }
    }
}
