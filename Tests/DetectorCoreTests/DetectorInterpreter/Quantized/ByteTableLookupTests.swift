import XCTest
@testable import DetectorCore
@testable import DetectorPlatform
@testable import DetectorZlib
@testable import DetectorModelFile
@testable import DetectorImage
@testable import DetectorInterpreter
@testable import DetectorPostprocess

/// The table lookup of the 8-bit element-wise ops: the AVX-512 VBMI form (64 bytes per step,
/// `vpermi2b`, on CPUs that have it) against the plain loop `out[i] = table[in[i]]`.
final class ByteTableLookupTests: XCTestCase {
    func testVectorLookupMatchesThePlainLoopForEveryLengthAndValue() {
        var state: UInt32 = 99
        func next() -> UInt8 { state = state &* 1_103_515_245 &+ 12345; return UInt8(truncatingIfNeeded: state >> 16) }
        let table = QuantizedLookupTable(Int8.self) { $0 &* 37 &+ 11 }
        // Every byte value, and every tail length around the 64-byte step.
        let lengths = Array(0...200) + [4096 + 17, 100_000]
        for count in lengths {
            let input: [Int8] = (0..<count).map { i in count == 256 ? Int8(truncatingIfNeeded: i) : Int8(bitPattern: next()) }
            let expected = input.map { UInt8(table.table[Int(UInt8(bitPattern: $0))]) }
            for tier in [InstructionSetTier.baseline, .avx512] {
                for threads in [1, 2] {
                    var output = [UInt8](repeating: 0xAA, count: count + 64)
                    input.withUnsafeBufferPointer { i in output.withUnsafeMutableBufferPointer { o in
                        guard let ib = i.baseAddress ?? UnsafePointer(bitPattern: 1), let ob = o.baseAddress else { return }
                        table.apply(input: ib, output: ob, count: count, threads: threads, tier: tier)
                    } }
                    XCTAssertEqual(Array(output[..<count]), expected, "count \(count), \(tier), \(threads) threads")
                    XCTAssertTrue(output[count...].allSatisfy { $0 == 0xAA }, "count \(count): wrote past the end")
                }
            }
        }
        // In place, as the interpreter may run it.
        var data: [UInt8] = (0..<1000).map { _ in next() }
        let expected = data.map { table.table[Int($0)] }
        data.withUnsafeMutableBufferPointer { d in
            guard let b = d.baseAddress else { return }
            table.apply(input: UnsafePointer(b), output: b, count: 1000, tier: .avx512)
        }
        XCTAssertEqual(data, expected)
        print("ByteTableLookupTests: VBMI lookups \(InstructionSetTier.hasByteTableLookup ? "run" : "not available on this CPU; the plain loop ran twice")")
    }
}
