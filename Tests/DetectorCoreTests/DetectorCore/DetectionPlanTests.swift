import XCTest
@testable import DetectorCore
@testable import DetectorPlatform
@testable import DetectorZlib
@testable import DetectorModelFile
@testable import DetectorImage
@testable import DetectorInterpreter
@testable import DetectorPostprocess

/// `DetectionPlan.make` for every family × resize mode × metadata present/absent, from facts
/// written by hand (no model file), against expectations written from the references'
/// documented defaults: MediaPipe (SSD, raw anchors) and ultralytics (YOLO).
final class DetectionPlanTests: XCTestCase {
    enum Family: CaseIterable { case ssd, anchors, yolov5, yolov8 }

    static func tensor(_ index: Int, _ shape: [Int], _ type: TensorDataType = .float32) -> TensorDescription {
        TensorDescription(index: index, name: "t\(index)", type: type, shape: shape, shapeSignature: shape, quantization: nil)
    }


    /// The facts of a model of `family`, with or without metadata (labels, normalization, threshold).
    static func facts(_ family: Family, metadata: Bool) -> ModelFacts {
        var f: ModelFacts
        switch family {
        case .ssd:
            f = ModelFacts(input: tensor(0, [1, 300, 300, 3], .uint8),
                           outputs: [tensor(1, [1, 10, 4]), tensor(2, [1, 10]), tensor(3, [1, 10]), tensor(4, [1])],
                           family: ModelFamilyInfo(family: .ssd, reason: "test", classCount: 3))
        case .anchors:
            // BlazeFace short range: 128×128, 896 anchors × 16 coordinates, one score each.
            f = ModelFacts(input: tensor(0, [1, 128, 128, 3]), outputs: [tensor(1, [1, 896, 16]), tensor(2, [1, 896, 1])],
                           family: ModelFamilyInfo(family: .anchors, reason: "test", classCount: 1))
        case .yolov5:
            f = ModelFacts(input: tensor(0, [1, 320, 320, 3]), outputs: [tensor(1, [1, 6300, 8])],
                           family: ModelFamilyInfo(family: .yolov5, reason: "test", classCount: 3))
        case .yolov8:
            f = ModelFacts(input: tensor(0, [1, 320, 320, 3]), outputs: [tensor(1, [1, 7, 2100])],
                           family: ModelFamilyInfo(family: .yolov8, reason: "test", classCount: 3))
        }
        if metadata {
            f.labels = family == .anchors ? ["face"] : ["cat", "dog", "bird"]
            f.scoreThreshold = 0.4
            f.normalization = (127.5, 127.5)
        }
        return f
    }

    func testEveryFamilyResizeModeAndMetadataCase() throws {
        for family in Family.allCases {
            for resize in [nil, ResizeMode.stretch, .letterbox] {
                for metadata in [false, true] {
                    let tag = "\(family) resize \(resize?.rawValue ?? "default") metadata \(metadata)"
                    var options = ObjectDetectorOptions(model: .file("unused.tflite"))
                    options.resizeMode = resize
                    let plan = try DetectionPlan.make(facts: Self.facts(family, metadata: metadata), options: options)

                    // Family and input size.
                    let expectedFamily: ModelFamily = [.ssd: .ssd, .anchors: .anchors, .yolov5: .yolov5, .yolov8: .yolov8][family]!
                    XCTAssertEqual(plan.family, expectedFamily, tag)
                    let side = [Family.ssd: 300, .anchors: 128, .yolov5: 320, .yolov8: 320][family]!
                    XCTAssertEqual(plan.tensorOptions.width, side, tag)
                    XCTAssertEqual(plan.tensorOptions.height, side, tag)
                    XCTAssertNil(plan.tensorOptions.region, tag)

                    // Fit: SSD stretches by default (MediaPipe's SSD graph), the face graph and
                    // ultralytics letterbox; MediaPipe pads black, ultralytics grey 114.
                    let isYolo = family == .yolov5 || family == .yolov8
                    let letterboxed = resize.map { $0 == .letterbox } ?? (family != .ssd)
                    XCTAssertEqual(plan.tensorOptions.resizeMode, letterboxed ? .letterbox : .stretch, tag)
                    XCTAssertEqual(plan.tensorOptions.letterboxFill, isYolo ? 114 : 0, tag)
                    // Resampler: MediaPipe's for its families; Pillow's bilinear when YOLO stretches
                    // (its goldens), OpenCV-style half-pixel bilinear when it letterboxes.
                    XCTAssertEqual(plan.tensorOptions.resampler, isYolo ? (letterboxed ? .bilinear : .pillowBilinear) : .mediaPipe, tag)

                    // Values: uint8 SSD input takes raw pixels; the face preset says [-1, 1];
                    // YOLO divides by 255 (mean 0, std 255) whatever the metadata says.
                    switch family {
                    case .ssd: XCTAssertEqual(plan.tensorOptions.inputType, .uint8, tag)
                    case .anchors: XCTAssertEqual(plan.tensorOptions.inputType, .float32(.range(min: -1, max: 1)), tag)
                    case .yolov5, .yolov8: XCTAssertEqual(plan.tensorOptions.inputType, .float32(.meanStd(mean: [0], std: [255])), tag)
                    }

                    // Labels: the metadata's; the face preset's "face"; none for the others without metadata
                    // (the models have 3 classes, so COCO's 80 names do not apply).
                    let expectedLabels = metadata ? (family == .anchors ? ["face"] : ["cat", "dog", "bird"]) : (family == .anchors ? ["face"] : [])
                    XCTAssertEqual(plan.labels.names, expectedLabels, tag)

                    // Post-processing: SSD thresholds in the shared filter (the metadata's 0.4), YOLO
                    // inside its decoder (conf), the face graph with its preset's min score.
                    XCTAssertEqual(plan.mapping.filter.scoreThreshold, family == .ssd && metadata ? 0.4 : nil, tag)
                    XCTAssertEqual(plan.mapping.boxRounding, family == .ssd ? .mediaPipeTruncation : DetectionOutputMapping.BoxRounding.none, tag)
                    XCTAssertEqual(plan.mapping.clampsToImage, family != .anchors, tag)
                    switch plan.decoding {
                    case let .ssd(_, outputs): XCTAssertEqual(outputs, [0, 1, 2, 3], tag)
                    case let .anchors(_, boxes, scores): XCTAssertEqual([boxes, scores], [0, 1], tag)
                    case .yolox, .endToEnd: XCTFail("no such family in this test", file: #filePath, line: #line)
                    case let .yolo(decoder, output):
                        XCTAssertEqual(output, 0, tag)
                        XCTAssertEqual(decoder.numClasses, 3, tag)
                        // The metadata's threshold, else none (MediaPipe's semantics; the CLI sets a fallback).
                        XCTAssertEqual(decoder.options.scoreThreshold, metadata ? Double(Float(0.4)) : -.infinity, tag)
                        XCTAssertEqual(decoder.layout, family == .yolov5 ? .yolov5 : .yolov8, tag)
                    }
                }
            }
        }
    }

    /// Explicit, else the model's (metadata), else the caller's fallback, else none — for the
    /// SSD filter and inside the YOLO decoder; the face preset's graph threshold counts as the model's.
    func testThresholdPrecedence() throws {
        func thresholds(_ family: Family, metadata: Bool, explicit: Float?, fallback: Float?) throws -> Double? {
            var options = ObjectDetectorOptions(model: .file("unused.tflite"))
            options.scoreThreshold = explicit
            options.fallbackScoreThreshold = fallback
            let plan = try DetectionPlan.make(facts: Self.facts(family, metadata: metadata), options: options,
                                              presetName: family == .anchors ? "face-short" : nil)
            switch plan.decoding {
            case .ssd: return plan.mapping.filter.scoreThreshold.map(Double.init)
            case let .yolo(d, _): return d.options.scoreThreshold
            case let .anchors(p, _, _): return p.decoder.options.minScoreThresh.map(Double.init)
            default: return nil
            }
        }
        for family in [Family.ssd, .yolov8] {
            XCTAssertEqual(try thresholds(family, metadata: true, explicit: 0.7, fallback: 0.25), Double(Float(0.7)))
            XCTAssertEqual(try thresholds(family, metadata: true, explicit: nil, fallback: 0.25), Double(Float(0.4)))
            XCTAssertEqual(try thresholds(family, metadata: false, explicit: nil, fallback: 0.25), 0.25)
            XCTAssertEqual(try thresholds(family, metadata: false, explicit: 0, fallback: 0.25), 0)
        }
        XCTAssertNil(try thresholds(.ssd, metadata: false, explicit: nil, fallback: nil))
        XCTAssertEqual(try thresholds(.yolov8, metadata: false, explicit: nil, fallback: nil), -.infinity)
        // BlazeFace's graph says 0.5: a fallback does not replace it, an explicit threshold does.
        XCTAssertEqual(try thresholds(.anchors, metadata: false, explicit: nil, fallback: 0.25), 0.5)
        XCTAssertEqual(try thresholds(.anchors, metadata: false, explicit: 0.3, fallback: 0.25), Double(Float(0.3)))
    }

    /// YOLOX (one row per grid cell): YOLOX's preprocessing by default, the channel order overridable.
    func testYoloxPlan() throws {
        let input = TensorDescription(index: 0, name: "images", type: .int8, shape: [1, 320, 320, 3], shapeSignature: [1, 320, 320, 3],
                                      quantization: TensorQuantization(scales: [1], zeroPoints: [-128]))
        let facts = ModelFacts(input: input,
                               outputs: [Self.tensor(1, [1, 2100, 85])],
                               family: ModelFamilyInfo(family: .yolox, reason: "test", classCount: 80))
        var options = ObjectDetectorOptions(model: .file("unused.tflite"))
        let plan = try DetectionPlan.make(facts: facts, options: options)
        XCTAssertEqual(plan.family, .yolox)
        XCTAssertEqual(plan.tensorOptions.resizeMode, .letterboxTopLeft)
        XCTAssertEqual(plan.tensorOptions.letterboxFill, 114)
        XCTAssertEqual(plan.tensorOptions.channelOrder, .bgr)
        XCTAssertEqual(plan.tensorOptions.resampler, .pillowBilinear)
        // 0…255 unnormalized: q = x / 1 − 128.
        XCTAssertEqual(plan.tensorOptions.inputType, .int8(scale: 1, zeroPoint: -128, normalization: .meanStd(mean: [0], std: [1])))
        XCTAssertEqual(plan.labels.names.first, "person")
        options.channelOrder = .rgb
        XCTAssertEqual(try DetectionPlan.make(facts: facts, options: options).tensorOptions.channelOrder, .rgb)
        // A YOLOX decoder on a YOLOv5-sized output is an error naming the row count it needs.
        var v5 = facts
        v5.outputs = [Self.tensor(1, [1, 6300, 85])]
        options.decoder = .yolox
        XCTAssertThrowsError(try DetectionPlan.make(facts: v5, options: options)) { e in
            XCTAssertTrue(String(describing: e).contains("N = 2100"), String(describing: e))
        }
    }

    func testFloatSsdInputUsesTheMetadataNormalizationElseMinusOneToOne() throws {
        var f = Self.facts(.ssd, metadata: false)
        f.input = Self.tensor(0, [1, 300, 300, 3])
        let options = ObjectDetectorOptions(model: .file("unused.tflite"))
        XCTAssertEqual(try DetectionPlan.make(facts: f, options: options).tensorOptions.inputType, .float32(.range(min: -1, max: 1)))
        f.normalization = (127.5, 127.5)
        // MediaPipe: (0 − 127.5) / 127.5 = −1 and (255 − 127.5) / 127.5 = 1.
        XCTAssertEqual(try DetectionPlan.make(facts: f, options: options).tensorOptions.inputType, .float32(.range(min: -1, max: 1)))
        f.normalization = (0, 255)
        XCTAssertEqual(try DetectionPlan.make(facts: f, options: options).tensorOptions.inputType, .float32(.range(min: 0, max: 1)))
    }

    func testAnEightyClassYoloModelWithoutLabelsGetsCocoNames() throws {
        let f = ModelFacts(input: Self.tensor(0, [1, 640, 640, 3]), outputs: [Self.tensor(1, [1, 84, 8400])],
                           family: ModelFamilyInfo(family: .yolov8, reason: "test", classCount: 80))
        let plan = try DetectionPlan.make(facts: f, options: ObjectDetectorOptions(model: .file("unused.tflite")))
        XCTAssertEqual(plan.labels.names.count, 80)
        XCTAssertEqual(plan.labels.names.first, "person")
        XCTAssertEqual(plan.labels.names.last, "toothbrush")
    }

    func testWrongDecodersAndLabelsAreErrorsNamingTheFix() {
        func message(_ family: Family, _ change: (inout ObjectDetectorOptions) -> Void) -> String? {
            var options = ObjectDetectorOptions(model: .file("unused.tflite"))
            change(&options)
            do {
                _ = try DetectionPlan.make(facts: Self.facts(family, metadata: true), options: options)
                return nil
            } catch { return String(describing: error) }
        }
        XCTAssertEqual(message(.yolov5) { $0.decoder = .yolov8 },
                       "the output [1, 6300, 8] has YOLOv5's layout [1, N, 5 + C], not YOLOv8's [1, 4 + C, N]; set `decoder` to yolov5.")
        XCTAssertEqual(message(.yolov8) { $0.decoder = .yolov5 },
                       "the output [1, 7, 2100] has YOLOv8's layout [1, 4 + C, N], not YOLOv5's [1, N, 5 + C]; set `decoder` to yolov8.")
        XCTAssertEqual(message(.yolov8) { $0.decoder = .ssd },
                       "the ssd decoder reads TFLite_Detection_PostProcess outputs (locations, classes, scores, count), but this model has outputs [[1, 7, 2100]]; set `decoder` to yolov8.")
        XCTAssertEqual(message(.yolov5) { $0.labels = ["a", "b"] },
                       "the model scores 3 classes but 2 labels were given; set `labels` to the model's 3 class names.")
        XCTAssertEqual(message(.ssd) { $0.categoryAllowlist = ["dgo", "cat"] },
                       "`categoryAllowlist` names a label the model does not have: 'dgo' (closest: 'dog').")
        XCTAssertEqual(message(.ssd) { $0.categoryDenylist = ["zebra"] },
                       "`categoryDenylist` names a label the model does not have: 'zebra'.")
        XCTAssertNil(message(.ssd) { $0.categoryAllowlist = ["dog"] })
    }

    /// The fix is data: the option and the value, which a front end names its own way (here as
    /// flags, written out by hand) — no message text is parsed.
    func testAMismatchCarriesTheOptionAndValueToSet() {
        var options = ObjectDetectorOptions(model: .file("unused.tflite"))
        options.decoder = .yolov8
        XCTAssertThrowsError(try DetectionPlan.make(facts: Self.facts(.yolov5, metadata: true), options: options)) { error in
            guard case let .modelMismatch(_, fix)? = error as? TaskError else { return XCTFail("expected .modelMismatch, got \(error)") }
            XCTAssertEqual(fix.settings.map(\.option), [.decoder])
            XCTAssertEqual(fix.settings.map(\.value), ["yolov5"])
            let flags = OptionNaming(name: { "--\($0)" }, setting: { "pass --\($0) \($1)" })
            XCTAssertEqual((error as? TaskError)?.description(naming: flags),
                           "the output [1, 6300, 8] has YOLOv5's layout [1, N, 5 + C], not YOLOv8's [1, 4 + C, N]; pass --decoder yolov5.")
        }
        options = ObjectDetectorOptions(model: .file("unused.tflite"))
        options.categoryAllowlist = ["dgo"]
        XCTAssertThrowsError(try DetectionPlan.make(facts: Self.facts(.ssd, metadata: true), options: options)) { error in
            guard case let .unknownCategories(option, names, _)? = error as? TaskError else { return XCTFail("got \(error)") }
            XCTAssertEqual(option, .categoryAllowlist)
            XCTAssertEqual(names, ["dgo"])
        }
        let text: OptionText = "\(set: .labels, to: "3 names"), or give a \(option: .decoderConfig)"
        XCTAssertEqual(text.description, "set `labels` to 3 names, or give a `decoderConfig`")
        XCTAssertEqual(text.parts, [.setting(.labels, value: "3 names"), .text(", or give a "), .option(.decoderConfig)])
    }

    func testClassifierFactsAreRejectedByTheDetectorAndDetectorFactsByTheLabeler() {
        let classifier = ModelFacts(input: Self.tensor(0, [1, 224, 224, 3]), outputs: [Self.tensor(1, [1, 1001])],
                                    family: ModelFamilyInfo(family: .classifier, reason: "one output of class scores [1, 1001]", classCount: 1001))
        XCTAssertThrowsError(try DetectionPlan.make(facts: classifier, options: ObjectDetectorOptions(model: .file("x")))) { e in
            XCTAssertEqual(String(describing: e), "this model is an image classifier (one output of class scores [1, 1001]), not a detector; label with it instead (ImageLabeler, or as `classifierModel` to classify detected objects).")
        }
        XCTAssertThrowsError(try ClassificationPlan.make(facts: Self.facts(.ssd, metadata: true), options: ImageLabelerOptions(model: .file("x")))) { e in
            XCTAssertEqual(String(describing: e), "this model's outputs [[1, 10, 4], [1, 10], [1, 10], [1]] are a detector's (ssd), not one tensor of class scores [1, C]; detect with it instead (ObjectDetector), and label with an image-classification model.")
        }
    }

    func testLogitOutputsNeedAChoice() throws {
        var f = ModelFacts(input: Self.tensor(0, [1, 224, 224, 3]), outputs: [Self.tensor(1, [1, 4])],
                           family: ModelFamilyInfo(family: .classifier, reason: "test", classCount: 4))
        f.scoringOperator = .fullyConnected
        var options = ImageLabelerOptions(model: .file("x"))
        XCTAssertThrowsError(try ClassificationPlan.make(facts: f, options: options)) { e in
            XCTAssertTrue(String(describing: e).hasPrefix("the classifier's output holds logits, not probabilities (its scores come from FULLY_CONNECTED"), "\(e)")
        }
        options.logitHandling = .softmax
        XCTAssertTrue(try ClassificationPlan.make(facts: f, options: options).appliesSoftmax)
        options.logitHandling = .raw
        XCTAssertFalse(try ClassificationPlan.make(facts: f, options: options).appliesSoftmax)
        // A softmax output, or metadata statistics within 0…1, are probabilities: no choice needed.
        options.logitHandling = .reject
        f.scoringOperator = .softmax
        XCTAssertFalse(try ClassificationPlan.make(facts: f, options: options).appliesSoftmax)
        f.scoringOperator = .fullyConnected
        f.outputStats = 0...1
        XCTAssertFalse(try ClassificationPlan.make(facts: f, options: options).appliesSoftmax)
        // softmax of (0, ln 3) is (1/4, 3/4).
        let p = ClassificationPlan.softmax([0, Float(log(3.0))])
        XCTAssertEqual(p[0], 0.25, accuracy: 1e-6)
        XCTAssertEqual(p[1], 0.75, accuracy: 1e-6)
    }

    func testClosestLabelsByEditDistance() {
        XCTAssertEqual(LabelSuggestions.editDistance(Array("kitten"), Array("sitting")), 3)
        XCTAssertEqual(LabelSuggestions.nearest(to: "persn", in: ["person", "bicycle", "parson", "car"]), ["person", "parson"])
        XCTAssertEqual(LabelSuggestions.nearest(to: "Dog", in: ["dog", "cat"]), ["dog"])
        XCTAssertEqual(LabelSuggestions.nearest(to: "xylophone", in: ["dog", "cat"]), [])
    }
}
