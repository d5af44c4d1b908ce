import Foundation
import XCTest
@testable import DetectorCore
@testable import DetectorPlatform
@testable import DetectorZlib
@testable import DetectorModelFile
@testable import DetectorImage
@testable import DetectorInterpreter
@testable import DetectorPostprocess

/// With `--classifier`, json, text, csv and the annotated PNG say the same thing about every
/// object: the detector's category and score, and the classifier's best label with its own
/// confidence (never the classifier's label with the detector's score).
final class ClassifierFormatsTests: XCTestCase {
    /// What every format must agree on for one object.
    private struct Said: Equatable, CustomStringConvertible {
        var category: String
        var score: String
        var label: String
        var confidence: String
        var description: String { "\(category) \(score) / \(label) \(confidence)" }
    }

    private func twoDecimals(_ v: Double) -> String { String(format: "%.2f", v) }

    func testJSONTextCSVAndAnnotationAgree() throws {
        let ssd = try SharedData.url("models/coco_ssd_mobilenet_v1_1.0_quant_2018_06_29.tflite").path
        let photo = try SharedData.url("images/png/cats_and_dogs.png").path
        let classifier = SharedData.fixture("automl_flowers/manifest.json").path
        let common = [photo, "--model", ssd, "--classifier", classifier, "--score-threshold", "0.3", "--quiet"]
        func run(_ extra: [String]) throws -> String {
            let r = try CLIRunner.run(common + extra)
            XCTAssertEqual(r.status, 0, r.stderr)
            return r.stdout
        }
        let annotated = FileManager.default.temporaryDirectory.appendingPathComponent("classified-\(ProcessInfo.processInfo.processIdentifier).png")
        defer { try? FileManager.default.removeItem(at: annotated) }

        // JSON: the reference; scores as the text formats print them.
        let document = try XCTUnwrap(try JSONSerialization.jsonObject(with: Data(try run(["--format", "json", "--annotate", annotated.path]).utf8)) as? [String: Any])
        let objects = try XCTUnwrap(document["objects"] as? [[String: Any]])
        XCTAssertGreaterThanOrEqual(objects.count, 2, "cats and dogs: several objects")
        var fromJSON: [Said] = []
        var exactScores: [(Double, Double)] = []
        for o in objects {
            let category = try XCTUnwrap(o["category"] as? [String: Any])
            let labels = try XCTUnwrap(o["labels"] as? [[String: Any]])
            let best = try XCTUnwrap(labels.first, "every object is classified")
            let score = try XCTUnwrap(o["score"] as? Double)
            XCTAssertEqual(category["confidence"] as? Double, score, "the category's confidence is the detection score")
            let confidence = try XCTUnwrap(best["confidence"] as? Double)
            XCTAssertNotEqual(confidence, score, "the classifier has its own confidence")
            // The name a person reads: the display name when the model has one, else the label text.
            func name(_ l: [String: Any]) throws -> String { try XCTUnwrap((l["displayName"] as? String) ?? (l["text"] as? String)) }
            fromJSON.append(Said(category: try name(category), score: twoDecimals(score), label: try name(best), confidence: twoDecimals(confidence)))
            exactScores.append((score, confidence))
        }
        XCTAssertTrue(fromJSON.contains { $0.category == "cat" } && fromJSON.contains { $0.category == "dog" }, "\(fromJSON)")
        XCTAssertTrue(fromJSON.allSatisfy { ["daisy", "dandelion", "roses", "sunflowers", "tulips"].contains($0.label) }, "\(fromJSON)")

        // text: "SOURCE: CATEGORY SCORE / LABEL CONFIDENCE at X,Y WxH".
        var fromText: [Said] = []
        for line in try run(["--format", "text"]).split(separator: "\n") {
            let body = try XCTUnwrap(line.hasPrefix("\(photo): ") ? line.dropFirst(photo.count + 2) : nil, String(line))
            let said = try XCTUnwrap(body.range(of: " at ", options: .backwards).map { body[..<$0.lowerBound] }, String(line))
            let halves = said.components(separatedBy: " / ")
            XCTAssertEqual(halves.count, 2, String(line))
            func split(_ s: String) -> (String, String) {
                let parts = s.split(separator: " ")
                return (parts.dropLast().joined(separator: " "), String(parts.last ?? ""))
            }
            let (category, score) = split(halves[0]), (label, confidence) = split(halves.last ?? "")
            fromText.append(Said(category: category, score: score, label: label, confidence: confidence))
        }
        XCTAssertEqual(fromText, fromJSON)

        // csv: the detector's label and score in their columns, the classifier's in their own.
        let csv = try run(["--format", "csv"]).split(separator: "\n").map { $0.split(separator: ",", omittingEmptySubsequences: false).map(String.init) }
        XCTAssertEqual(csv.first, ["source", "frameIndex", "trackingID", "label", "score", "x", "y", "width", "height", "classifierLabel", "classifierScore"])
        let rows = Array(csv.dropFirst())
        XCTAssertEqual(rows.count, objects.count)
        for (k, row) in rows.enumerated() where k < fromJSON.count && row.count == 11 {
            XCTAssertEqual(row[3], fromJSON[k].category)
            XCTAssertEqual(Double(row[4]), exactScores[k].0, "csv score = json score")
            XCTAssertEqual(row[9], fromJSON[k].label)
            XCTAssertEqual(Double(row[10]), exactScores[k].1, "csv classifier score = json confidence")
        }

        // The annotated PNG: the photo with the boxes and tags drawn from the JSON's values, the
        // tags saying "CATEGORY SCORE / LABEL CONFIDENCE", best object last.
        let original = try ImageDecoder.decode(contentsOf: photo).image.converted(to: .rgb8)
        var annotations: [ImageAnnotation] = []
        for (o, said) in zip(objects, fromJSON) {
            let box = try XCTUnwrap(o["box"] as? [String: Double])
            let index = try XCTUnwrap((o["category"] as? [String: Any])?["index"] as? Int)
            annotations.append(ImageAnnotation(rect: ImageRect(x: box["x"] ?? 0, y: box["y"] ?? 0, width: box["width"] ?? 0, height: box["height"] ?? 0),
                                               label: said.description, classIndex: index))
        }
        let expected = ImageAnnotator.draw(annotations.reversed(), on: original)
        let written = try ImageDecoder.decode(contentsOf: annotated.path).image.converted(to: .rgb8)
        XCTAssertEqual(written.width, expected.width)
        XCTAssertEqual(written.pixels == expected.pixels, true, "the annotation draws the same words as json and text")
    }

    /// Without a classifier: text has no " / " part and csv's classifier columns are empty.
    func testWithoutAClassifierTheClassifierColumnsAreEmpty() throws {
        let face = SharedData.fixture("astronaut.png").path
        let text = try CLIRunner.run([face, "--model", "face", "--format", "text", "--quiet"])
        XCTAssertEqual(text.status, 0, text.stderr)
        XCTAssertFalse(text.stdout.contains(" / "), text.stdout)
        let csv = try CLIRunner.run([face, "--model", "face", "--format", "csv", "--quiet"])
        XCTAssertEqual(csv.status, 0, csv.stderr)
        let lines = csv.stdout.split(separator: "\n")
        XCTAssertEqual(lines.count, 2, csv.stdout)
        XCTAssertTrue(lines.first?.hasSuffix(",classifierLabel,classifierScore") ?? false, csv.stdout)
        XCTAssertTrue(lines.last?.hasPrefix("\(face),,,face,0.") ?? false, csv.stdout)
        XCTAssertTrue(lines.last?.hasSuffix(",,") ?? false, csv.stdout)
    }
}
