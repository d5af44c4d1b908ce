import Foundation
import XCTest
@testable import DetectorCore
@testable import DetectorPlatform
@testable import DetectorZlib
@testable import DetectorModelFile
@testable import DetectorImage
@testable import DetectorInterpreter
@testable import DetectorPostprocess

/// Every kernel splits its work so that each value is computed the same way on any thread:
/// whole models run with 1 and with 3 threads give the same bytes in every tensor, including
/// the intermediate ones (element-wise ops, copies, softmax and convolutions that split only
/// when the tensor is large).
final class ThreadCountInvarianceTests: XCTestCase {
    /// Deterministic input bytes (a linear congruential sequence), or floats in [-1, 1].
    private func input(for description: TensorDescription, seed: UInt32) -> [UInt8] {
        var state = seed
        func next() -> UInt32 { state = state &* 1_664_525 &+ 1_013_904_223; return state }
        let count = description.byteCount
        if description.type == .float32 {
            let floats = (0..<(count / 4)).map { _ in Float(Int32(truncatingIfNeeded: next() >> 8) - (1 << 23)) / Float(1 << 23) }
            return floats.withUnsafeBytes { Array($0) }
        }
        return (0..<count).map { _ in UInt8(truncatingIfNeeded: next() >> 24) }
    }

    private func allTensors(_ model: String, threads: Int) throws -> (tensors: [[UInt8]?], producers: [Int: String]) {
        let interpreter = try Interpreter(contentsOfFile: try SharedData.url("models/" + model).path,
                                          options: .init(threadCount: threads, preserveAllTensors: true))
        for (i, d) in interpreter.inputs.enumerated() {
            try interpreter.copyInput(input(for: d, seed: UInt32(7 + i)), at: i)
        }
        try interpreter.invoke()
        var producers: [Int: String] = [:]
        for (k, op) in interpreter.graph.operators.enumerated() { for t in op.outputs { producers[t] = "op \(k) \(op.opName)" } }
        return ((0..<interpreter.graph.tensors.count).map { interpreter.tensorBytes($0)?.bytes }, producers)
    }

    private func check(_ model: String) throws {
        let (one, producers) = try allTensors(model, threads: 1)
        let three = try allTensors(model, threads: 3).tensors
        XCTAssertEqual(one.count, three.count)
        var compared = 0
        for (t, (a, b)) in zip(one, three).enumerated() {
            guard let a else { continue }
            compared += 1
            guard let b, a.count == b.count else { XCTFail("\(model): tensor \(t) is missing or resized with 3 threads"); continue }
            let differing = zip(a, b).filter { $0 != $1 }.count
            XCTAssertEqual(differing, 0, "\(model): \(differing) of \(a.count) bytes of tensor \(t) (\(producers[t] ?? "input")) differ between 1 and 3 threads")
        }
        XCTAssertGreaterThan(compared, 50, "\(model): too few tensors compared")
    }

    func testFullIntegerYoloIsTheSameOnAnyThreadCount() throws { try check("yolov8n_full_integer_quant.tflite") }
    func testHybridYoloIsTheSameOnAnyThreadCount() throws { try check("yolov8n_int8.tflite") }
    func testUInt8MobileNetIsTheSameOnAnyThreadCount() throws { try check("mobilenet_v2_1.0_224_quant.tflite") }
    func testFloatPalmDetectorIsTheSameOnAnyThreadCount() throws { try check("palm_detection_lite.tflite") }

    /// `parallelElements` covers the range once, in ranges that start at multiples of 64, at
    /// most `grainsPerPart` (4) of them for each part of at least `minimumPerPart` elements.
    func testElementPartsCoverTheRangeOnceOn64Boundaries() {
        for count in [0, 1, 63, 64, 65, 40_000, 100_003] {
            for threads in [1, 2, 3] {
                let seen = UnsafeMutablePointer<UInt8>.allocate(capacity: max(count, 1))
                seen.initialize(repeating: 0, count: max(count, 1))
                defer { seen.deallocate() }
                let lock = NSLock()
                nonisolated(unsafe) var starts: [Int] = []
                KernelSupport.parallelElements(count, threads: threads, minimumPerPart: 1000) { range in
                    lock.lock(); starts.append(range.lowerBound); lock.unlock()
                    for i in range { seen[i] &+= 1 }
                }
                XCTAssertTrue((0..<count).allSatisfy { seen[$0] == 1 }, "count \(count), threads \(threads)")
                XCTAssertTrue(starts.allSatisfy { $0 % 64 == 0 }, "count \(count), threads \(threads)")
                XCTAssertLessThanOrEqual(starts.count, max(1, min(threads, count / 1000)) * 4)
                if threads == 1 || count < 2000 { XCTAssertLessThanOrEqual(starts.count, 1) }
            }
        }
    }
}
