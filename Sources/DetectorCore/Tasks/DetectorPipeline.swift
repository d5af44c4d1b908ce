import DetectorPostprocess
import DetectorInterpreter
import DetectorImage
import DetectorModelFile
import DetectorZlib
import DetectorPlatform
import Foundation

/// One detector model made ready to run: its interpreter and its `DetectionPlan`. Built once by
/// `ObjectDetector`; not thread-safe (the interpreter owns one arena), so its owner serializes calls.
final class DetectorPipeline {
    let interpreter: Interpreter
    let plan: DetectionPlan

    var labels: LabelMap { plan.labels }

    init(options: ObjectDetectorOptions) throws {
        let model = try ModelLoading.load(options.model)
        let assets = try ModelAssets(model: model)
        let interpreter = try Interpreter(model: model, options: .init(threadCount: options.threadCount, maxArenaBytes: options.maxArenaBytes,
                                                                     maxMultiplyAccumulates: options.maxMultiplyAccumulates))
        let facts = try ModelFacts(model: model, assets: assets, interpreter: interpreter, locale: options.displayNamesLocale)
        var preset: String?
        if case let .embedded(name) = options.model { preset = name }
        self.plan = try DetectionPlan.make(facts: facts, options: options, presetName: preset)
        self.interpreter = interpreter
    }

    /// A pipeline over an interpreter already made (e.g. from a graph built in memory) and its plan.
    init(interpreter: Interpreter, plan: DetectionPlan) {
        self.interpreter = interpreter
        self.plan = plan
    }

    /// Runs the model on an upright image; results in that image's pixel coordinates, by descending score.
    func detect(_ image: ImageBuffer) throws -> [DetectedObject] {
        var clock = StageClock()
        return try detect(image, clock: &clock)
    }

    /// `detect(_:)`, timing its stages: `clock` closes the preprocess and inference stages (the caller closes postprocess).
    func detect(_ image: ImageBuffer, clock: inout StageClock) throws -> [DetectedObject] {
        let tensor = try ImageToTensor.convert(image, options: plan.tensorOptions)
        try interpreter.copyInput(tensor.values, at: 0)
        clock.close(.preprocess)
        try interpreter.invoke()
        clock.close(.inference)
        let mapping = plan.mapping
        switch plan.decoding {
        case let .ssd(ssd, outputs):
            let detections = try ssd.decode(locations: try floats(outputs[0]), classes: try floats(outputs[1]),
                                            scores: try floats(outputs[2]), count: try floats(outputs[3]))
            return try mapping.objects(fromNormalized: detections, transform: tensor.transform, labels: plan.labels)
        case let .anchors(pipeline, boxes, scores):
            // Normalized to the tensor; the shared mapping removes the letterbox.
            let detections = try pipeline.run(boxes: try floats(boxes), boxesShape: interpreter.outputs[boxes].shape,
                                              scores: try floats(scores), scoresShape: interpreter.outputs[scores].shape,
                                              padding: .none)
            return try mapping.objects(fromNormalized: detections, transform: tensor.transform, labels: plan.labels)
        case let .yolo(yolo, output):
            let found = try yolo.decode(try floats(output), shape: interpreter.outputs[output].shape,
                                        inputWidth: plan.tensorOptions.width, inputHeight: plan.tensorOptions.height)
            return mapping.objects(fromTensorPixels: found, transform: tensor.transform, labels: plan.labels)
        case let .yolox(yolox, output):
            // YOLOX's NMS compares boxes in image pixels.
            let found = try yolox.decode(try floats(output), shape: interpreter.outputs[output].shape,
                                         inputWidth: plan.tensorOptions.width, inputHeight: plan.tensorOptions.height,
                                         imageScaleX: tensor.transform.scaleX, imageScaleY: tensor.transform.scaleY)
            return mapping.objects(fromTensorPixels: found, transform: tensor.transform, labels: plan.labels)
        case let .endToEnd(decoder, output):
            let found = try decoder.decode(try floats(output), shape: interpreter.outputs[output].shape,
                                           inputWidth: plan.tensorOptions.width, inputHeight: plan.tensorOptions.height)
            return mapping.objects(fromTensorPixels: found, transform: tensor.transform, labels: plan.labels)
        }
    }

    private func floats(_ position: Int) throws -> [Float] { try interpreter.dequantizedOutput(at: position) }
}

/// Reads a model from where the options say it is; shared by every task.
enum ModelLoading {
    static func load(_ source: ModelSource) throws -> TFLiteModel {
        switch source {
        case let .file(path):
            guard FileManager.default.fileExists(atPath: path) else {
                throw TaskError.invalidOption(name: .model, reason: "no file at \(path)")
            }
            return try TFLiteModel(contentsOfFile: path)
        case let .data(data):
            return try TFLiteModel(data: data)
        case let .embedded(name):
            return try TFLiteModel(contentsOfFile: try ModelCatalog.path(for: name))
        case .autoMLManifest:
            throw TaskError.invalidOption(name: .model, reason: "an AutoML manifest describes an image classifier, not a detector; give a detector .tflite")
        }
    }
}
