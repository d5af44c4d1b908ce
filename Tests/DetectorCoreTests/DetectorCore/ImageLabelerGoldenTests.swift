import Foundation
import XCTest
@testable import DetectorCore
@testable import objdetect
@testable import DetectorPlatform
@testable import DetectorZlib
@testable import DetectorModelFile
@testable import DetectorImage
@testable import DetectorInterpreter
@testable import DetectorPostprocess

/// `ImageLabeler` against `../shared/goldens/classification` (MediaPipe ImageClassifier and the
/// raw interpreter runs), with the README's match rule.
final class ImageLabelerGoldenTests: XCTestCase {
    struct GoldenCategory { var index: Int; var score: Double }

    func golden(_ stem: String) throws -> [String: Any] {
        let url = try SharedData.url("goldens/classification/\(stem).json")
        return try XCTUnwrap(try JSONSerialization.jsonObject(with: Data(contentsOf: url)) as? [String: Any])
    }

    func categories(_ list: Any?) -> [GoldenCategory] {
        (list as? [[String: Any]] ?? []).compactMap { c in
            guard let i = c["index"] as? Int, let s = c["score"] as? Double else { return nil }
            return GoldenCategory(index: i, score: s)
        }
    }

    /// The README's position-by-position rule; returns the problems (empty = match).
    func matchProblems(_ candidate: [GoldenCategory], _ reference: [GoldenCategory], allScores: [Double], tolerance: Double,
                       threshold: Double? = nil, admitted: Set<Int>? = nil) -> [String] {
        var cand = candidate, ref = reference
        if let t = threshold {
            let near: (Double) -> Bool = { $0 >= t - tolerance && $0 < t + tolerance }
            cand.removeAll { $0.index < allScores.count && near(allScores[$0.index]) }
            ref.removeAll { near($0.score) }
            if let bad = cand.first(where: { $0.index < allScores.count && allScores[$0.index] < t - tolerance }) {
                return ["class \(bad.index) is below the threshold"]
            }
        }
        guard cand.count == ref.count else { return ["\(cand.count) categories, reference has \(ref.count)"] }
        guard Set(cand.map(\.index)).count == cand.count else { return ["repeated index"] }
        var problems: [String] = []
        for (p, (c, r)) in zip(cand, ref).enumerated() {
            if abs(c.score - r.score) > tolerance { problems.append("position \(p): score \(c.score) vs \(r.score)") }
            if c.index != r.index {
                let near = c.index < allScores.count && abs(allScores[c.index] - r.score) <= tolerance
                if !near || (admitted.map { !$0.contains(c.index) } ?? false) {
                    problems.append("position \(p): index \(c.index) vs \(r.index)")
                }
            }
        }
        return problems
    }

    func check(_ stem: String, exactAgainstReferenceKernels: Bool) throws {
        let g = try golden(stem)
        let model = try SharedData.url("models/\(stem).tflite").path
        let images = try XCTUnwrap(g["images"] as? [[String: Any]])
        let top10 = try ImageLabeler(options: { var o = ImageLabelerOptions(model: .file(model)); o.logitHandling = .raw; o.maxResults = 10; return o }())
        let top3 = try ImageLabeler(options: { var o = ImageLabelerOptions(model: .file(model)); o.logitHandling = .raw; o.maxResults = 3; return o }())
        let thr = try ImageLabeler(options: { var o = ImageLabelerOptions(model: .file(model)); o.logitHandling = .raw; o.maxResults = nil; o.confidenceThreshold = 0.1; return o }())
        var preprocessingExact = 0, rawExact = 0, mediapipePasses = 0, checks = 0
        var worstRaw = 0.0
        for entry in images {
            let file = try XCTUnwrap(entry["file"] as? String)
            let name = (file as NSString).lastPathComponent
            let image = try ImageDecoder.decode(contentsOf: SharedData.url("images/png/\(name)").path).image
            let raw = try XCTUnwrap(entry["raw"] as? [String: Any])
            // Preprocessing: the resized 224×224 RGB must be MediaPipe's byte for byte.
            let resized = try ImageToTensor.convert(image, options: top10.tensorOptions).resized
            let mpResize = try XCTUnwrap(raw["mediapipe_resize"] as? [String: Any])
            if SHA256Hash.hexDigest(resized.pixels) == mpResize["input_sha256"] as? String { preprocessingExact += 1 }
            // Interpreter: top 10 against the reference kernels (quantized: bit-exact) or XNNPACK (float).
            let ours = try top10.label(image: image).map { GoldenCategory(index: $0.index, score: Double($0.confidence)) }
            let refKey = exactAgainstReferenceKernels ? "mediapipe_resize_ref_kernels" : "mediapipe_resize"
            let refTop = categories((raw[refKey] as? [String: Any])?["top10"])
            if exactAgainstReferenceKernels {
                // Same quantized scores (dequantized in float32 here, in float64 there: ≤ 1e-6 apart)
                // in the same order (ties by ascending index in both).
                if ours.count == refTop.count && zip(ours, refTop).allSatisfy({ abs($0.score - $1.score) <= 1e-6 })
                    && ours.map(\.index) == refTop.map(\.index) { rawExact += 1 }
                for (a, b) in zip(ours, refTop) { worstRaw = max(worstRaw, abs(a.score - b.score)) }
            } else {
                for (a, b) in zip(ours, refTop) { worstRaw = max(worstRaw, abs(a.score - b.score)) }
                if matchProblems(ours, refTop, allScores: (entry["mediapipe_all_scores"] as? [Double]) ?? [], tolerance: 1e-4).isEmpty { rawExact += 1 }
            }
            // MediaPipe's option sets with the match rule (0.01 for float; the reference kernels'
            // distance from XNNPACK for quantized models: 0.07 probabilities, 0.7 logits).
            let all = (entry["mediapipe_all_scores"] as? [Double]) ?? []
            let tolerance = exactAgainstReferenceKernels ? (stem.contains("v2") ? 0.7 : 0.07) : 0.01
            let mp = try XCTUnwrap(entry["mediapipe"] as? [String: Any])
            for (key, labeler, threshold) in [("max_results_10", top10, nil), ("max_results_3", top3, nil), ("score_threshold_0.1", thr, 0.1)] as [(String, ImageLabeler, Double?)] {
                let ref = categories((mp[key] as? [String: Any])?["categories"])
                let got = try labeler.label(image: image).map { GoldenCategory(index: $0.index, score: Double($0.confidence)) }
                checks += 1
                let problems = matchProblems(got, ref, allScores: all, tolerance: tolerance, threshold: threshold)
                if problems.isEmpty { mediapipePasses += 1 } else if !exactAgainstReferenceKernels {
                    XCTFail("\(stem) \(name) \(key): \(problems)")
                }
            }
            // The allowlist set: the error for models without labels, else only admitted classes.
            let allowEntry = try XCTUnwrap(mp["category_allowlist"] as? [String: Any])
            let names = ((allowEntry["options"] as? [String: Any])?["category_allowlist"] as? [String]) ?? []
            var o = ImageLabelerOptions(model: .file(model))
            o.logitHandling = .raw   // MediaPipe reports mobilenet_v2's logits as they are
            o.categoryAllowlist = names
            if let error = allowEntry["error"] as? String {
                // MediaPipe's error (`error`) with the Swift option names.
                XCTAssertTrue(error.contains("requires labels"), error)
                XCTAssertThrowsError(try ImageLabeler(options: o)) { e in
                    XCTAssertEqual(String(describing: e), "`categoryAllowlist` and `categoryDenylist` need labels, but the model has none")
                }
            } else {
                let got = try ImageLabeler(options: o).label(image: image)
                let admitted = Set(names.compactMap { top10.labels.firstIndex(of: $0) })
                XCTAssertTrue(got.allSatisfy { admitted.contains($0.index) }, "\(stem) \(name)")
                XCTAssertEqual(got.count, admitted.count)
            }
        }
        print("[ImageLabeler \(stem)] preprocessing bit-exact \(preprocessingExact)/\(images.count), top-10 vs \(exactAgainstReferenceKernels ? "reference kernels, exact" : "MediaPipe raw, 1e-4") \(rawExact)/\(images.count) (worst |Δ| \(worstRaw)), MediaPipe option sets passing \(mediapipePasses)/\(checks)")
        XCTAssertEqual(preprocessingExact, images.count)
        XCTAssertEqual(rawExact, images.count)
    }

    func testFloatMobileNetMatchesMediaPipe() throws {
        try check("mobilenet_v1_0.25_224_1_metadata_1", exactAgainstReferenceKernels: false)
    }

    func testQuantizedMobileNetV1IsExactWithReferenceKernels() throws {
        try check("mobilenet_v1_0.25_224_quant", exactAgainstReferenceKernels: true)
    }

    func testQuantizedMobileNetV2IsExactWithReferenceKernels() throws {
        try check("mobilenet_v2_1.0_224_quant", exactAgainstReferenceKernels: true)
    }

    func testAutoMLLabelerIsExactWithReferenceKernels() throws {
        try check("automl_labeler_model", exactAgainstReferenceKernels: true)
    }

    func testAutoMLFolderGivesTheSameLabels() throws {
        let manifest = try SharedData.url("models/automl_flowers/manifest.json").path
        let viaManifest = try ImageLabeler(options: ImageLabelerOptions(model: .localModel(path: manifest)))
        let viaFile = try ImageLabeler(options: ImageLabelerOptions(model: .file(SharedData.url("models/automl_labeler_model.tflite").path)))
        XCTAssertEqual(viaManifest.labels, viaFile.labels)
        XCTAssertEqual(viaManifest.labels.count, 5)
        let image = try ImageDecoder.decode(contentsOf: SharedData.url("images/png/sparrow.png").path).image
        XCTAssertEqual(try viaManifest.label(image: image), try viaFile.label(image: image))
    }
}
