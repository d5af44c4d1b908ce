import DetectorZlib
import DetectorPlatform
import Dispatch
import Foundation

/// Turns the coefficient planes of a parsed JPEG into pixels: islow IDCT per block, then
/// upsampling and colour conversion row by row. Both stages run over row bands on the calling
/// thread and a worker (`JPEGRowPipeline.run`), or are done during a streamed scan.
enum JPEGPixelAssembler {
    /// Returns the pixels (`gray8` for one component, `rgb8` otherwise) and the colour model.
    static func assemble(_ parser: JPEGStreamParser) throws -> (ImageBuffer, JPEGColorModel) {
        guard let frame = parser.frame else { throw JPEGError.noImage(offset: parser.count) }
        let width = frame.width, height = frame.height
        let model = JPEGColorModel.decide(componentCount: frame.components.count,
                                          componentIDs: frame.components.map(\.id),
                                          jfif: parser.sawJFIF, adobeTransform: parser.adobeTransform)

        if let pixels = parser.pipelinedPixels, model == .ycbcr {
            return (try ImageBuffer(width: width, height: height, format: .rgb8, pixels: pixels, maxPixels: parser.maxPixels), model)
        }

        // 1. IDCT every block that covers the component's real samples (smoothed first where
        //    libjpeg would smooth a progressive image with missing AC bits).
        //    A streamed scan has done this already (`parser.streamedSamples`, owned by the parser).
        let smoother = JPEGBlockSmoother(frame: frame, progress: parser.progress)
        var ownedPlanes: [UnsafeMutablePointer<UInt8>] = []
        defer { for p in ownedPlanes { p.deallocate() } }
        if parser.planes.isEmpty && parser.streamedSamples.isEmpty { parser.allocatePlanes() }
        for (ci, component) in frame.components.enumerated() where parser.streamedSamples.isEmpty {
            let stride = component.blocksPerRow * 8
            let rows = component.blockRows * 8
            let plane = UnsafeMutablePointer<UInt8>.allocate(capacity: stride * rows)
            ownedPlanes.append(plane)
            let coefficients = parser.planes[ci]
            let quant = component.quant ?? [Int32](repeating: 0, count: 64)
            let blockRows = component.blockRows, blocksPerRow = component.blocksPerRow
            quant.withUnsafeBufferPointer { q in
                guard let qBase = q.baseAddress else { return }
                JPEGRowPipeline.run(blockRows, chunk: max(1, blockRows / jpegBandCount)) { band in
                    let first = band.lowerBound, last = band.upperBound
                    if let smoother {
                        smoothedTransform(smoother, component: component, index: ci, coefficients: coefficients,
                                          blockRows: first..<last, iMCURows: frame.mcuRows, quant: qBase,
                                          output: plane, stride: stride)
                        return
                    }
                    for by in first..<last {
                        JPEGIDCT.transformBlocks(coefficients.block(column: 0, row: by), count: blocksPerRow, quant: qBase,
                                                 output: plane + by * 8 * stride, stride: stride)
                    }
                }
            }
        }

        let samplePlanes = parser.streamedSamples.isEmpty ? ownedPlanes : parser.streamedSamples

        // 2. Upsample and convert colours into the output image.
        let format: PixelFormat = frame.components.count == 1 ? .gray8 : .rgb8
        let byteCount = try ImageBuffer.byteCount(width: width, height: height, format: format, maxPixels: parser.maxPixels)
        // Every byte of every row is written by the bands below, so no zero-fill first.
        var pixelBytes = [UInt8](unsafeUninitializedCapacity: byteCount) { _, initialized in
            initialized = byteCount
        }
        let upsamplers = Self.upsamplers(frame: frame, planes: samplePlanes)
        let converter = JPEGColorConverter.shared
        let rowCapacity = upsamplers.map(\.rowCapacity).max() ?? width
        let componentCount = frame.components.count
        pixelBytes.withUnsafeMutableBufferPointer { pixelBuffer in
            guard let pixels = pixelBuffer.baseAddress else { return }
            converter.crToR.withUnsafeBufferPointer { crR in
            converter.cbToB.withUnsafeBufferPointer { cbB in
            converter.crToG.withUnsafeBufferPointer { crG in
            converter.cbToG.withUnsafeBufferPointer { cbG in
                guard let crR = crR.baseAddress, let cbB = cbB.baseAddress,
                      let crG = crG.baseAddress, let cbG = cbG.baseAddress else { return }
                JPEGRowPipeline.run(height, chunk: max(1, height / jpegBandCount)) { band in
                    let rowBuffers = UnsafeMutablePointer<UInt8>.allocate(capacity: rowCapacity * componentCount)
                    defer { rowBuffers.deallocate() }
                    let first = band.lowerBound, last = band.upperBound
                    var rows = [UnsafePointer<UInt8>](repeating: UnsafePointer(rowBuffers), count: componentCount)
                    for y in first..<last {
                        for ci in 0..<componentCount {
                            rows[ci] = upsamplers[ci].row(y, out: rowBuffers + ci * rowCapacity)
                        }
                        switch model {
                        case .gray:
                            (pixels + y * width).update(from: rows[0], count: width)
                        case .ycbcr:
                            JPEGColorConverter.ycbcrToRGB(y: rows[0], cb: rows[1], cr: rows[2], out: pixels + y * width * 3,
                                                          width: width)
                        case .rgb:
                            let out = pixels + y * width * 3
                            for x in 0..<width {
                                out[3 * x] = rows[0][x]; out[3 * x + 1] = rows[1][x]; out[3 * x + 2] = rows[2][x]
                            }
                        case .cmyk, .ycck:
                            let out = pixels + y * width * 3
                            for x in 0..<width {
                                var c = Int32(rows[0][x]), m = Int32(rows[1][x]), yy = Int32(rows[2][x])
                                let k = Int32(rows[3][x])
                                if model == .ycck {
                                    let luma = c, cb = Int(m), cr = Int(yy)
                                    c = 255 - Int32(JPEGColorConverter.clamp(luma &+ crR[cr]))
                                    m = 255 - Int32(JPEGColorConverter.clamp(luma &+ ((cbG[cb] &+ crG[cr]) &>> 16)))
                                    yy = 255 - Int32(JPEGColorConverter.clamp(luma &+ cbB[cb]))
                                }
                                out[3 * x] = JPEGColorConverter.invertedCMYKToRGB(c, k)
                                out[3 * x + 1] = JPEGColorConverter.invertedCMYKToRGB(m, k)
                                out[3 * x + 2] = JPEGColorConverter.invertedCMYKToRGB(yy, k)
                            }
                        }
                    }
                }
            }}}}
        }
        return (try ImageBuffer(width: width, height: height, format: format, pixels: pixelBytes, maxPixels: parser.maxPixels), model)
    }
}

extension JPEGPixelAssembler {
    /// One upsampler per component over its sample plane (`blocksPerRow * 8` bytes per row).
    static func upsamplers(frame: JPEGFrame, planes: [UnsafeMutablePointer<UInt8>]) -> [JPEGUpsampler] {
        frame.components.enumerated().map { ci, c in
            JPEGUpsampler(plane: planes[ci], stride: c.blocksPerRow * 8, width: c.width, height: c.height,
                          factorH: frame.maxH / c.h, factorV: frame.maxV / c.v)
        }
    }

    /// Output rows `rows` of a YCbCr image (three upsamplers) as RGB into `pixels`
    /// (`width * 3` bytes per row): what the assembler's bands do, for `JPEGRowPipeline`.
    static func convertYCbCrRows(_ rows: Range<Int>, upsamplers: [JPEGUpsampler], width: Int,
                                 pixels: UnsafeMutablePointer<UInt8>) {
        guard upsamplers.count == 3, !rows.isEmpty else { return }
        let capacity = upsamplers.map(\.rowCapacity).max() ?? width
        let buffers = UnsafeMutablePointer<UInt8>.allocate(capacity: capacity * 3)
        defer { buffers.deallocate() }
        for y in rows {
            let luma = upsamplers[0].row(y, out: buffers)
            let cb = upsamplers[1].row(y, out: buffers + capacity), cr = upsamplers[2].row(y, out: buffers + 2 * capacity)
            JPEGColorConverter.ycbcrToRGB(y: luma, cb: cb, cr: cr, out: pixels + y * width * 3, width: width)
        }
    }
}

/// The IDCT of block rows `blockRows` of component `index`, each block smoothed first by the
/// plan of its row (rows whose plan is empty go straight to the IDCT).
private func smoothedTransform(_ smoother: JPEGBlockSmoother, component: JPEGComponent, index: Int,
                               coefficients: JPEGCoefficientPlane, blockRows: Range<Int>, iMCURows: Int,
                               quant: UnsafePointer<Int32>, output: UnsafeMutablePointer<UInt8>, stride: Int) {
    let rows = UnsafeMutablePointer<Int>.allocate(capacity: 5)
    let dcs = UnsafeMutablePointer<Int>.allocate(capacity: 25)
    let workspace = UnsafeMutablePointer<Int16>.allocate(capacity: 64)
    defer { rows.deallocate(); dcs.deallocate(); workspace.deallocate() }
    for by in blockRows {
        let plan = smoother.plan(component: index, blockRow: by, v: component.v)
        JPEGBlockSmoother.neighbourRows(row: by, v: component.v, iMCURows: iMCURows, blockRows: component.blockRows,
                                        storedRows: coefficients.blockRows, into: rows)
        if plan.isEmpty {
            JPEGIDCT.transformBlocks(coefficients.block(column: 0, row: by), count: component.blocksPerRow, quant: quant,
                                     output: output + by * 8 * stride, stride: stride)
            continue
        }
        for bx in 0..<component.blocksPerRow {
            var source = UnsafePointer(coefficients.block(column: bx, row: by))
            if !plan.isEmpty {
                JPEGBlockSmoother.smooth(coefficients, rows: rows, column: bx, blocksPerRow: component.blocksPerRow,
                                         plan: plan, quant: quant, dcs: dcs, workspace: workspace)
                source = UnsafePointer(workspace)
            }
            JPEGIDCT.transform(coefficients: source, quant: quant, output: output + by * 8 * stride + bx * 8, stride: stride)
        }
    }
}

/// Chunks the decoder splits IDCT and colour work into (taken by the calling thread and a
/// worker, `JPEGRowPipeline.run`; all on the calling thread when pinned to one core): 4 per core.
private let jpegBandCount = JPEGRowPipeline.availableCores * 4
