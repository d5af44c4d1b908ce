import Foundation
import DetectorCore

/// Single mode: each image detected on its own (no tracking IDs), one result per image. One
/// image gets a one-line summary on stderr; several get progress and a final summary.
struct SingleRunner {
    let options: ObjectDetectorOptions
    let orientations: OrientationChoice
    let output: ResultOutputOptions
    let annotate: AnnotationTarget?

    func run(_ paths: [String]) throws -> Int32 {
        let detector = try ObjectDetector(options: options)
        try annotate?.prepare()
        let writer = ResultWriter(format: output.format, pretty: output.pretty, channel: output.channel, asArray: paths.count > 1)
        let progress = ProgressReporter(unit: "images", quiet: output.quiet || paths.count == 1, total: paths.count)
        writer.beforeWrite = progress.clearLine
        var names = Set<String>()
        var stages = StageSummary()
        for path in paths {
            if Interruption.requested { break }
            let started = DispatchTime.now().uptimeNanoseconds
            do {
                let decoded = try stages.decoding { try DetectInputs.decodeImage(path) }
                let input = UprightInput(decoded, orientation: orientations.orientation(of: decoded), rendersUpright: annotate != nil)
                let objects = try detector.detect(image: input.image, orientation: input.orientation)
                try writer.write(ImageResult(source: path == "-" ? "stdin" : path, width: input.size.width, height: input.size.height, objects: objects))
                if let annotate, let upright = input.upright { try annotate.write(upright, objects: objects, name: uniqueName(path, &names)) }
                progress.add(objects: objects.count)
                if paths.count == 1 && !output.quiet {
                    let ms = Double(DispatchTime.now().uptimeNanoseconds - started) / 1e6
                    stages.task = detector.timings
                    printError("objdetect: \(path == "-" ? "stdin" : path): \(objects.count) object\(objects.count == 1 ? "" : "s") in \(String(format: "%.1f", ms)) ms (\(stages.text))")
                }
            } catch {
                try progress.batchFailure(error, source: path, single: paths.count == 1)
            }
        }
        try writer.finish()
        stages.task = detector.timings
        if paths.count > 1 { progress.finish(interrupted: Interruption.requested, stages: stages) }
        if Interruption.requested { return Interruption.exitStatus }
        return progress.failures > 0 ? 1 : 0
    }

    /// "photo.png" for a folder of annotated pictures; "photo_2.png" when two inputs share a name.
    func uniqueName(_ path: String, _ used: inout Set<String>) -> String {
        let stem = path == "-" ? "stdin" : PathName.deletingExtension(PathName.lastComponent(path))
        var name = stem + ".png"
        var k = 2
        while used.contains(name) { name = "\(stem)_\(k).png"; k += 1 }
        used.insert(name)
        return name
    }
}
