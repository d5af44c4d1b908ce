import XCTest
@testable import DetectorCore
@testable import DetectorPlatform
@testable import DetectorZlib
@testable import DetectorModelFile
@testable import DetectorImage
@testable import DetectorInterpreter
@testable import DetectorPostprocess

final class SsdAnchorGeneratorTests: XCTestCase {
    func testPresetAnchorCounts() throws {
        XCTAssertEqual(try SsdAnchorGenerator.generate(XCTUnwrap(DetectorDecoderConfig.faceShortRange.anchors)).count, 896)
        XCTAssertEqual(try SsdAnchorGenerator.generate(XCTUnwrap(DetectorDecoderConfig.faceFullRange.anchors)).count, 2304)
        XCTAssertEqual(try SsdAnchorGenerator.generate(XCTUnwrap(DetectorDecoderConfig.palm.anchors)).count, 2016)
    }

    func testShortRangeAnchorValuesByHand() throws {
        let a = try SsdAnchorGenerator.generate(XCTUnwrap(DetectorDecoderConfig.faceShortRange.anchors))
        // Layer 0: stride 8 → 16×16 cells, 2 anchors per cell (ratio 1 + interpolated).
        XCTAssertEqual(a[0], Anchor(xCenter: 0.5 / 16, yCenter: 0.5 / 16, width: 1, height: 1))
        XCTAssertEqual(a[1], a[0])
        XCTAssertEqual(a[2].xCenter, 1.5 / 16)
        XCTAssertEqual(a[2].yCenter, 0.5 / 16)
        XCTAssertEqual(a[32].xCenter, 0.5 / 16)   // row 1 starts after 16 cells × 2
        XCTAssertEqual(a[32].yCenter, 1.5 / 16)
        XCTAssertEqual(a[511].xCenter, 15.5 / 16)
        XCTAssertEqual(a[511].yCenter, 15.5 / 16)
        // Strides 16, 16, 16 merge: 8×8 cells, 6 anchors per cell.
        for k in 512..<518 {
            XCTAssertEqual(a[k].xCenter, 0.0625)
            XCTAssertEqual(a[k].yCenter, 0.0625)
        }
        XCTAssertEqual(a[518].xCenter, 0.1875)
        XCTAssertEqual(a[895], Anchor(xCenter: 0.9375, yCenter: 0.9375, width: 1, height: 1))
    }

    func testFullRangeAnchorValuesByHand() throws {
        let a = try SsdAnchorGenerator.generate(XCTUnwrap(DetectorDecoderConfig.faceFullRange.anchors))
        XCTAssertEqual(a[0].xCenter, 0.5 / 48)
        XCTAssertEqual(a[1].xCenter, 1.5 / 48)
        XCTAssertEqual(a[1].yCenter, 0.5 / 48)
        XCTAssertEqual(a[48].yCenter, 1.5 / 48)
        XCTAssertEqual(a[2303].xCenter, 47.5 / 48)
    }

    func testPalmLayout() throws {
        let a = try SsdAnchorGenerator.generate(XCTUnwrap(DetectorDecoderConfig.palm.anchors))
        // 24×24×2 = 1152 anchors in the stride-8 layer, then 12×12×6.
        XCTAssertEqual(a[1151].xCenter, 23.5 / 24)
        XCTAssertEqual(a[1152].xCenter, 0.5 / 12)
        XCTAssertEqual(a[1157].xCenter, 0.5 / 12)
        XCTAssertEqual(a[1158].xCenter, 1.5 / 12)
    }

    func testScalesAspectRatiosAndInterpolatedAnchor() throws {
        let options = SsdAnchorOptions(inputSizeWidth: 64, inputSizeHeight: 32, minScale: 0.2, maxScale: 0.8,
                                       numLayers: 2, strides: [16, 32], aspectRatios: [1, 2])
        let a = try SsdAnchorGenerator.generate(options)
        // Layer 0: 4×2 cells × 3 anchors; layer 1: 2×1 cells × 3 anchors.
        XCTAssertEqual(a.count, 4 * 2 * 3 + 2 * 1 * 3)
        // Layer 0 scale 0.2: ratio 1 → 0.2×0.2; ratio 2 → w 0.2√2, h 0.2/√2; interpolated √(0.2·0.8) = 0.4.
        XCTAssertEqual(a[0].width, 0.2, accuracy: 1e-7)
        XCTAssertEqual(a[0].height, 0.2, accuracy: 1e-7)
        XCTAssertEqual(a[1].width, 0.28284271, accuracy: 1e-6)
        XCTAssertEqual(a[1].height, 0.14142136, accuracy: 1e-6)
        XCTAssertEqual(a[2].width, 0.4, accuracy: 1e-6)
        XCTAssertEqual(a[2].height, 0.4, accuracy: 1e-6)
        XCTAssertEqual(a[0].xCenter, 0.125)   // (0 + 0.5) / 4
        XCTAssertEqual(a[0].yCenter, 0.25)    // (0 + 0.5) / 2
        // Layer 1 (last) scale 0.8, interpolated with 1.0: √0.8.
        let l1 = 24
        XCTAssertEqual(a[l1].width, 0.8, accuracy: 1e-6)
        XCTAssertEqual(a[l1 + 2].width, 0.89442719, accuracy: 1e-6)
        XCTAssertEqual(a[l1].xCenter, 0.25)
        XCTAssertEqual(a[l1].yCenter, 0.5)
    }

    func testReduceBoxesInLowestLayerAndSingleStrideScale() throws {
        let options = SsdAnchorOptions(inputSizeWidth: 32, inputSizeHeight: 32, minScale: 0.2, maxScale: 0.95,
                                       numLayers: 2, strides: [16, 32], aspectRatios: [1.0],
                                       reduceBoxesInLowestLayer: true, interpolatedScaleAspectRatio: 0)
        let a = try SsdAnchorGenerator.generate(options)
        XCTAssertEqual(a.count, 2 * 2 * 3 + 1)
        XCTAssertEqual(a[0].width, 0.1, accuracy: 1e-7)          // ratio 1, scale 0.1
        XCTAssertEqual(a[1].width, Float(0.2 * 2.0.squareRoot()), accuracy: 1e-6)  // ratio 2, scale 0.2
        XCTAssertEqual(a[2].height, Float(0.2 * 2.0.squareRoot()), accuracy: 1e-6) // ratio 0.5
        XCTAssertEqual(a[12].width, 0.95, accuracy: 1e-6)
        // A single stride uses (min + max) / 2.
        let one = try SsdAnchorGenerator.generate(SsdAnchorOptions(inputSizeWidth: 8, inputSizeHeight: 8, minScale: 0.2,
                                                                   maxScale: 0.6, numLayers: 1, strides: [8],
                                                                   aspectRatios: [1], interpolatedScaleAspectRatio: 0))
        XCTAssertEqual(one.count, 1)
        XCTAssertEqual(one[0].width, 0.4, accuracy: 1e-7)
    }

    func testFeatureMapsOverrideStrideSizesAndCeil() throws {
        let fm = try SsdAnchorGenerator.generate(SsdAnchorOptions(
            inputSizeWidth: 100, inputSizeHeight: 100, minScale: 0.1, maxScale: 0.9, numLayers: 1,
            featureMapWidth: [3], featureMapHeight: [2], strides: [8], aspectRatios: [1], interpolatedScaleAspectRatio: 0))
        XCTAssertEqual(fm.count, 6)
        XCTAssertEqual(fm[5].xCenter, 2.5 / 3, accuracy: 1e-7)
        // 100 / 16 = 6.25 → 7 cells (ceil).
        let ceilCount = try SsdAnchorGenerator.generate(SsdAnchorOptions(
            inputSizeWidth: 100, inputSizeHeight: 100, minScale: 0.1, maxScale: 0.9, numLayers: 1,
            strides: [16], aspectRatios: [1], interpolatedScaleAspectRatio: 0)).count
        XCTAssertEqual(ceilCount, 49)
    }

    func testInvalidOptionsThrow() {
        func options(_ change: (inout SsdAnchorOptions) -> Void) -> SsdAnchorOptions {
            var o = DetectorDecoderConfig.faceShortRange.anchors!
            change(&o)
            return o
        }
        XCTAssertThrowsError(try SsdAnchorGenerator.generate(options { $0.numLayers = 0 }))
        XCTAssertThrowsError(try SsdAnchorGenerator.generate(options { $0.strides = [8, 16] }))
        XCTAssertThrowsError(try SsdAnchorGenerator.generate(options { $0.strides = [8, 0, 16, 16] }))
        XCTAssertThrowsError(try SsdAnchorGenerator.generate(options { $0.inputSizeWidth = 0 }))
        XCTAssertThrowsError(try SsdAnchorGenerator.generate(options { $0.aspectRatios = [-1] }))
        XCTAssertThrowsError(try SsdAnchorGenerator.generate(options { $0.featureMapWidth = [1] }))
        // Too many anchors is a typed error, not an allocation.
        XCTAssertThrowsError(try SsdAnchorGenerator.generate(options {
            $0.numLayers = 1; $0.strides = [1]; $0.inputSizeWidth = 60_000; $0.inputSizeHeight = 60_000
        })) { error in
            guard case DetectionError.tooLarge = error else { return XCTFail("\(error)") }
        }
        XCTAssertThrowsError(try SsdAnchorGenerator.generate(options {
            $0.numLayers = 1; $0.strides = [1]; $0.featureMapWidth = [Int.max]; $0.featureMapHeight = [Int.max]
        }))
    }
}
