import Foundation
import XCTest
@testable import DetectorCore
@testable import DetectorPlatform
@testable import DetectorZlib
@testable import DetectorModelFile
@testable import DetectorImage
@testable import DetectorInterpreter
@testable import DetectorPostprocess

/// Expected metadata values were read independently with the Python `flatbuffers` package's
/// generic Table API over the TFLITE_METADATA buffer, and label files with Python's `zipfile`.
final class TFLiteMetadataTests: XCTestCase {
    func model(_ name: String) throws -> TFLiteModel {
        try TFLiteModel(contentsOfFile: try SharedData.url("models/\(name)").path)
    }

    func lines(ofSharedFile name: String) throws -> [String] {
        let text = try String(contentsOf: try SharedData.url("models/\(name)"), encoding: .utf8)
        var l = text.components(separatedBy: "\n")
        if l.last == "" { l.removeLast() }
        return l
    }

    func testCocoSSDMetadataAndLabels() throws {
        let m = try model("coco_ssd_mobilenet_v1_1.0_quant_2018_06_29.tflite")
        let assets = try ModelAssets(model: m)
        let meta = try XCTUnwrap(assets.metadata)
        XCTAssertEqual(meta.name, "Coco SSD MobileNetV1")
        XCTAssertEqual(meta.version, "v1")
        XCTAssertEqual(meta.author, "TensorFlow")
        XCTAssertEqual(meta.minParserVersion, "1.0.0")
        XCTAssertEqual(meta.inputNormalization, NormalizationOptions(mean: [127.5], std: [127.5]))
        guard case let .image(image)? = meta.imageInput?.content?.properties else { return XCTFail("input is not an image") }
        XCTAssertEqual(image.colorSpace, .rgb)
        let outputs = try XCTUnwrap(meta.subgraphs.first?.outputTensors)
        XCTAssertEqual(outputs.map(\.name), ["locations", "classes", "scores", "number of detections"])
        XCTAssertEqual(outputs[0].boundingBox, BoundingBoxProperties(index: [1, 0, 3, 2], type: .boundaries, coordinateType: .ratio))
        XCTAssertEqual(outputs[0].content?.range, 2...2)
        XCTAssertEqual(outputs[1].associatedFiles.map(\.name), ["labelmap.txt"])
        XCTAssertEqual(outputs[1].associatedFiles.map(\.type), [.tensorValueLabels])
        XCTAssertEqual(outputs[1].associatedFiles.first?.locale, nil)
        XCTAssertNil(assets.scoreThreshold)
        // Labels equal the published label map, line for line (90 entries with '???' placeholders).
        let labels = try XCTUnwrap(try assets.labels())
        XCTAssertEqual(labels, try lines(ofSharedFile: "coco_ssd_mobilenet_v1_labelmap.txt"))
        XCTAssertEqual(labels.count, 90)
        XCTAssertEqual(labels.first, "person")
        XCTAssertEqual(try assets.labels(forOutput: 1), labels)
        XCTAssertNil(try assets.labels(forOutput: 0), "the box output has no label file")
    }

    func testScoreCalibrationModel() throws {
        let assets = try ModelAssets(model: try model("coco_ssd_mobilenet_v1_1.0_quant_2018_06_29_score_calibration.tflite"))
        let meta = try XCTUnwrap(assets.metadata)
        XCTAssertEqual(meta.name, "ObjectDetector")
        XCTAssertEqual(meta.minParserVersion, "1.2.0")
        XCTAssertEqual(meta.subgraphs.first?.outputTensorGroups.map(\.name), ["detection_result"])
        let score = try XCTUnwrap(assets.outputMetadata(2))
        XCTAssertEqual(score.name, "score")
        XCTAssertEqual(score.scoreCalibration, ScoreCalibrationOptions(transformation: .inverseLogistic, defaultScore: 0))
        XCTAssertEqual(score.associatedFiles.map(\.type), [.tensorAxisScoreCalibration])
        XCTAssertEqual(try assets.labels(), try lines(ofSharedFile: "coco_ssd_mobilenet_v1_labelmap.txt"))
        let (output, calibration) = try XCTUnwrap(try assets.scoreCalibration())
        XCTAssertEqual(output, 2)
        // The dummy file: every line "1.0,1.0,0.0,-99" except an empty 4th line.
        XCTAssertEqual(calibration.sigmoids[0], ScoreCalibration.Sigmoid(scale: 1, slope: 1, offset: 0, minScore: -99))
        XCTAssertNil(calibration.sigmoids[3])
        // sigmoid(logit(x)) = x with these parameters; the empty line gives the default score.
        XCTAssertEqual(try calibration.calibrate(score: 0.7, classIndex: 0), 0.7, accuracy: 1e-5)
        XCTAssertEqual(try calibration.calibrate(score: 0.2, classIndex: 5), 0.2, accuracy: 1e-5)
        XCTAssertEqual(try calibration.calibrate(score: 0.7, classIndex: 3), 0)
        // Like MediaPipe, a class beyond the calibration table is an error, not a silent default.
        XCTAssertThrowsError(try calibration.calibrate(score: 0.7, classIndex: 10_000))
    }

    func testClassifierLabelsAndNormalization() throws {
        let automl = try ModelAssets(model: try model("automl_labeler_model.tflite"))
        XCTAssertEqual(automl.metadata?.inputNormalization, NormalizationOptions(mean: [0], std: [1]))
        XCTAssertEqual(try automl.labels(), try lines(ofSharedFile: "automl_flowers/dict.txt"))
        let folder = try ModelAssets(model: try model("automl_flowers/model.tflite"))
        XCTAssertEqual(try folder.labels(), ["daisy", "dandelion", "roses", "sunflowers", "tulips"])

        for name in ["mobilenet_v1_0.25_224_quant.tflite", "mobilenet_v1_0.25_224_1_metadata_1.tflite"] {
            let assets = try ModelAssets(model: try model(name))
            XCTAssertEqual(assets.metadata?.inputNormalization, NormalizationOptions(mean: [127.5], std: [127.5]), name)
            let labels = try XCTUnwrap(try assets.labels(), name)
            XCTAssertEqual(labels.count, 1001, name)
            XCTAssertEqual(Array(labels.prefix(3)), ["background", "tench", "goldfish"], name)
            XCTAssertEqual(labels.last, "toilet tissue", name)
        }
        let deeplab = try ModelAssets(model: try model("deeplabv3.tflite"))
        XCTAssertEqual(try deeplab.labels()?.count, 21)
    }

    func testYOLOv8UltralyticsNames() throws {
        let expected = try lines(ofSharedFile: "yolo_coco80_labels.txt")
        XCTAssertEqual(expected.count, 80)
        for name in ["yolov8n_int8.tflite", "yolov8n_full_integer_quant.tflite"] {
            let assets = try ModelAssets(model: try model(name))
            XCTAssertEqual(assets.metadata?.author, "Ultralytics", name)
            XCTAssertEqual(try assets.labels(), expected, name)
        }
    }

    func testModelsWithoutMetadataReadFine() throws {
        for name in ["coco_ssd_mobilenet_v1_1.0_quant_2018_06_29_no_metadata.tflite", "mobilenet_v2_1.0_224_quant.tflite",
                     "palm_detection_lite.tflite", "yolov5n-int8.tflite", "face_detection_full_range.tflite"] {
            let assets = try ModelAssets(model: try model(name))
            XCTAssertNil(assets.metadata, name)
            XCTAssertNil(try assets.labels(), name)
            XCTAssertNil(try assets.scoreCalibration(), name)
        }
        // dilated_conv has metadata and an empty archive; min_runtime_version is a plain entry.
        let dilated = try model("dilated_conv.tflite")
        XCTAssertEqual(dilated.metadataEntries.map(\.name), ["min_runtime_version", "TFLITE_METADATA"])
        let assets = try ModelAssets(model: dilated)
        XCTAssertEqual(assets.archive?.entries.count, 0)
        XCTAssertEqual(assets.metadata?.name, "Dilated Convolution Model")
    }

    func testModelFamilies() throws {
        let expected: [(String, ModelFamily, Int?)] = [
            ("coco_ssd_mobilenet_v1_1.0_quant_2018_06_29.tflite", .ssd, 90),
            ("coco_ssd_mobilenet_v1_1.0_quant_2018_06_29_no_metadata.tflite", .ssd, 90),
            ("face_detection_short_range.tflite", .anchors, 1),
            ("face_detection_full_range.tflite", .anchors, 1),
            ("palm_detection_lite.tflite", .anchors, 1),
            ("yolov5n-int8.tflite", .yolov5, 80),
            ("yolov5n-fp16.tflite", .yolov5, 80),
            ("yolov8n_int8.tflite", .yolov8, 80),
            ("yolov8n_full_integer_quant.tflite", .yolov8, 80),
            ("yolox_nano_ti_lite_320_int8.tflite", .yolox, 80),
            ("yolox_nano_ti_lite_320_fp16.tflite", .yolox, 80),
            ("mobilenet_v1_0.25_224_quant.tflite", .classifier, 1001),
            ("mobilenet_v2_1.0_224_quant.tflite", .classifier, 1001),
            ("automl_labeler_model.tflite", .classifier, 5),
            ("deeplabv3.tflite", .unknown, nil),
            ("dilated_conv.tflite", .unknown, nil),
        ]
        for (name, family, classes) in expected {
            let info = ModelFamilyDetector.detect(try model(name))
            XCTAssertEqual(info.family, family, "\(name): \(info.reason)")
            XCTAssertEqual(info.classCount, classes, name)
        }
        // BlazeFace: the regressor is [1, 896, 16], the scores [1, 896, 1].
        let face = try model("face_detection_short_range.tflite")
        let info = ModelFamilyDetector.detect(face)
        XCTAssertEqual(face.mainSubgraph.tensors[try XCTUnwrap(info.boxesTensor)].shape, [1, 896, 16])
        XCTAssertEqual(face.mainSubgraph.tensors[try XCTUnwrap(info.scoresTensor)].shape, [1, 896, 1])
        XCTAssertEqual(info.candidateCount, 896)
        // Overridable.
        let forced = ModelFamilyDetector.detect(face, override: .yolov5)
        XCTAssertEqual(forced.family, .yolov5)
        XCTAssertTrue(forced.overridden)
    }
}

/// ZIP archives made by Python's `zipfile` (stored + deflated entries) behind 70 bytes standing in
/// for a model; once with absolute offsets (as the TFLite metadata populator writes them), once
/// with offsets relative to the archive start (as when a ZIP is simply concatenated).
final class ZipArchiveTests: XCTestCase {
    static let absoluteOffsets = "TU9ERUxCWVRFU01PREVMQllURVNNT0RFTEJZVEVTTU9ERUxCWVRFU01PREVMQllURVNNT0RFTEJZVEVTTU9ERUxCWVRFU1BLAwQUAAAAAAAAACEAIZAi8QgAAAAIAAAADQAAAGxhYmVsc19lbi50eHRjYXQKZG9nClBLAwQUAAAAAAAAACEAnw9IkwsAAAALAAAADQAAAGxhYmVsc19mci50eHRjaGF0CmNoaWVuClBLAwQUAAAACAAAACEAw7y30JEBAABiBwAABwAAAGJpZy50eHRN1TtuHTEQBdFcq9ASePnncmTA2dt/LMBgFR11Vj2Y4eF8fv78/XyXr8+/mTvrne3Ofue4c9657tx3HjoGKYZkaIZoqIZs6IZwKFfK1WelXClXypVypVwpV8qVcqPcKDdfA+VGuVFulBvlRrlR7pQ75U65+4Ypd8qdcqfcKXfKg/KgPCgPysOPR3lQHpQH5UF5Up6UJ+VJeVKengvKk/KkPCkvyovyorwoL8qL8vLIUV6UF+VNeVPelDflTXlT3pS3p5nypnwoH8qH8qF8KB/Kh/KhfITypEilaKWIpailyKXopQimKKZIprjjP47ueCCfyEfymXwon8rHUpcRZuoz7w5tRpxRZ+QZfUagUWgkGo2mvYvFHTKNTiPUKDVSjVYj1qg1ck1/t5c7FBvJRrMRbVQb2Ua3EW6Um/GuSHeIN+qNfKPfCDgKjoSj4Yg4893D7tBxhBwlR8rRcsQcNUfO0XPWu+zdIeloOqKOqiPr6DrCjrIj7ez3R3GHuiPv6DsCj8Ij8Wg8Io/Kc95v63z9AlBLAQIUAxQAAAAAAAAAIQAhkCLxCAAAAAgAAAANAAAAAAAAAAAAAACAAUYAAABsYWJlbHNfZW4udHh0UEsBAhQDFAAAAAAAAAAhAJ8PSJMLAAAACwAAAA0AAAAAAAAAAAAAAIABeQAAAGxhYmVsc19mci50eHRQSwECFAMUAAAACAAAACEAw7y30JEBAABiBwAABwAAAAAAAAAAAAAAgAGvAAAAYmlnLnR4dFBLBQYAAAAAAwADAKsAAABlAgAAAAA="
    static let relativeOffsets = "TU9ERUxCWVRFU01PREVMQllURVNNT0RFTEJZVEVTTU9ERUxCWVRFU01PREVMQllURVNNT0RFTEJZVEVTTU9ERUxCWVRFU1BLAwQUAAAAAAAAACEAIZAi8QgAAAAIAAAADQAAAGxhYmVsc19lbi50eHRjYXQKZG9nClBLAwQUAAAAAAAAACEAnw9IkwsAAAALAAAADQAAAGxhYmVsc19mci50eHRjaGF0CmNoaWVuClBLAwQUAAAACAAAACEAw7y30JEBAABiBwAABwAAAGJpZy50eHRN1TtuHTEQBdFcq9ASePnncmTA2dt/LMBgFR11Vj2Y4eF8fv78/XyXr8+/mTvrne3Ofue4c9657tx3HjoGKYZkaIZoqIZs6IZwKFfK1WelXClXypVypVwpV8qVcqPcKDdfA+VGuVFulBvlRrlR7pQ75U65+4Ypd8qdcqfcKXfKg/KgPCgPysOPR3lQHpQH5UF5Up6UJ+VJeVKengvKk/KkPCkvyovyorwoL8qL8vLIUV6UF+VNeVPelDflTXlT3pS3p5nypnwoH8qH8qF8KB/Kh/KhfITypEilaKWIpailyKXopQimKKZIprjjP47ueCCfyEfymXwon8rHUpcRZuoz7w5tRpxRZ+QZfUagUWgkGo2mvYvFHTKNTiPUKDVSjVYj1qg1ck1/t5c7FBvJRrMRbVQb2Ua3EW6Um/GuSHeIN+qNfKPfCDgKjoSj4Yg4893D7tBxhBwlR8rRcsQcNUfO0XPWu+zdIeloOqKOqiPr6DrCjrIj7ez3R3GHuiPv6DsCj8Ij8Wg8Io/Kc95v63z9AlBLAQIUAxQAAAAAAAAAIQAhkCLxCAAAAAgAAAANAAAAAAAAAAAAAACAAQAAAABsYWJlbHNfZW4udHh0UEsBAhQDFAAAAAAAAAAhAJ8PSJMLAAAACwAAAA0AAAAAAAAAAAAAAIABMwAAAGxhYmVsc19mci50eHRQSwECFAMUAAAACAAAACEAw7y30JEBAABiBwAABwAAAAAAAAAAAAAAgAFpAAAAYmlnLnR4dFBLBQYAAAAAAwADAKsAAAAfAgAAAAA="

    func archive(_ base64: String) throws -> ZipArchive {
        let data = try XCTUnwrap(Data(base64Encoded: base64))
        return try XCTUnwrap(try ZipArchive(storage: ByteStorage(copying: data)))
    }

    func testStoredAndDeflatedEntriesWithEitherOffsetConvention() throws {
        let big = (0..<200).map { "label \($0)" }
        for encoded in [Self.absoluteOffsets, Self.relativeOffsets] {
            let zip = try archive(encoded)
            XCTAssertEqual(zip.entries.map(\.name), ["labels_en.txt", "labels_fr.txt", "big.txt"])
            XCTAssertEqual(zip.entries.map(\.method), [0, 0, 8])
            XCTAssertEqual(zip.entries[0].crc32, 4_045_574_177, "CRC from Python's zlib.crc32")
            XCTAssertEqual(try zip.contents(named: "labels_en.txt"), Array("cat\ndog\n".utf8))
            XCTAssertEqual(LabelFile.parseLines(try XCTUnwrap(try zip.contents(named: "labels_fr.txt"))), ["chat", "chien"])
            XCTAssertEqual(LabelFile.parseLines(try XCTUnwrap(try zip.contents(named: "big.txt"))), big)
            XCTAssertNil(try zip.contents(named: "missing.txt"))
        }
    }

    func testLabelsChosenByLocale() throws {
        let zip = try archive(Self.absoluteOffsets)
        let output = TensorMetadata(name: "classes", associatedFiles: [
            AssociatedFileInfo(name: "labels_en.txt", type: .tensorValueLabels, locale: "en"),
            AssociatedFileInfo(name: "labels_fr.txt", type: .tensorValueLabels, locale: "fr"),
        ])
        let meta = ModelMetadata(subgraphs: [SubGraphMetadata(outputTensors: [output])])
        let assets = ModelAssets(metadata: meta, archive: zip)
        XCTAssertEqual(try assets.labels(), ["cat", "dog"], "no locale: the first file")
        XCTAssertEqual(try assets.labels(locale: "fr"), ["chat", "chien"])
        XCTAssertEqual(try assets.labels(locale: "fr-CA"), ["chat", "chien"], "falls back to the language")
        XCTAssertEqual(try assets.labels(locale: "de"), ["cat", "dog"], "unknown locale: the first file")
        XCTAssertEqual(assets.labelLocales(forOutput: 0), ["en", "fr"])
    }

    func testCorruptArchivesThrow() throws {
        var bytes = [UInt8](try XCTUnwrap(Data(base64Encoded: Self.absoluteOffsets)))
        // Flip a byte of the stored "cat": the CRC no longer matches.
        let catOffset = 70 + 30 + "labels_en.txt".utf8.count
        XCTAssertEqual(bytes[catOffset], UInt8(ascii: "c"))
        bytes[catOffset] = UInt8(ascii: "b")
        let zip = try XCTUnwrap(try ZipArchive(storage: ByteStorage(copying: bytes)))
        XCTAssertThrowsError(try zip.contents(named: "labels_en.txt")) { error in
            guard case ZipArchiveError.checksumMismatch = error else { return XCTFail("\(error)") }
        }
        // Central directory offset pointing nowhere.
        var bad = [UInt8](try XCTUnwrap(Data(base64Encoded: Self.absoluteOffsets)))
        let end = bad.count - 22
        bad[end + 16] = 0xFF
        bad[end + 17] = 0xFF
        XCTAssertThrowsError(try ZipArchive(storage: ByteStorage(copying: bad)))
        // No archive at all.
        XCTAssertNil(try ZipArchive(storage: ByteStorage(copying: [UInt8](repeating: 7, count: 100))))
    }
}
