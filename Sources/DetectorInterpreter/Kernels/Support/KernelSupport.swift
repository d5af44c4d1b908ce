import DetectorModelFile
import DetectorPlatform
import Dispatch

/// Helpers shared by the float kernels.
enum KernelSupport {
    /// Clamp range of a fused activation, as TFLite's `CalculateActivationRange` for float
    /// (TANH and SIGN_BIT fused activations clamp nothing there).
    static func activationRange(_ a: OperatorParameters.Activation) -> (min: Float, max: Float) {
        switch a {
        case .relu: return (0, .greatestFiniteMagnitude)
        case .relu6: return (0, 6)
        case .reluN1To1: return (-1, 1)
        case .none, .tanh, .signBit: return (-.greatestFiniteMagnitude, .greatestFiniteMagnitude)
        }
    }

    /// Output size of a conv/pool dimension (TFLite `ComputeOutSize`), nil when invalid.
    static func outputSize(padding: OperatorParameters.Padding, input: Int, filter: Int, stride: Int, dilation: Int) -> Int? {
        guard stride > 0, dilation > 0, filter > 0, input >= 0 else { return nil }
        let (e1, o1) = (filter - 1).multipliedReportingOverflow(by: dilation)
        guard !o1 else { return nil }
        let effective = e1 + 1
        switch padding {
        case .same: return (input + stride - 1) / stride
        case .valid:
            let n = input + stride - effective
            return n < 0 ? 0 : n / stride
        }
    }

    /// Leading padding of a conv/pool dimension (TFLite `ComputePaddingWithOffset`).
    static func paddingBefore(input: Int, filter: Int, stride: Int, dilation: Int, output: Int) -> Int {
        let effective = (filter - 1) * dilation + 1
        let total = max((output - 1) * stride + effective - input, 0)
        return total / 2
    }

    /// Runs `body(i)` for `i` in `0..<count`, over `threads` threads when more than one
    /// (`WorkerPool`; Dispatch on Apple systems older than the `Synchronization` module).
    @inline(__always)
    static func parallelFor(_ count: Int, threads: Int, _ body: (Int) -> Void) {
        if threads <= 1 || count <= 1 {
            for i in 0..<count { body(i) }
        } else if #available(macOS 15.0, iOS 18.0, tvOS 18.0, watchOS 11.0, visionOS 2.0, *) {
            WorkerPool.shared.run(count, threads: threads, body)
        } else {
            withoutActuallyEscaping(body) { body in
                let box = UncheckedSendableBox(body)
                DispatchQueue.concurrentPerform(iterations: count) { box.value($0) }
            }
        }
    }

    /// Starts the worker threads `threads`-way work uses (`threads` − 1 besides the caller), so
    /// that they are running before the first parallel pass; nothing for one thread.
    static func startWorkers(threads: Int) {
        guard threads > 1 else { return }
        if #available(macOS 15.0, iOS 18.0, tvOS 18.0, watchOS 11.0, visionOS 2.0, *) {
            WorkerPool.shared.startWorkers(threads - 1)
        }
    }

    /// Splits `0..<count` into contiguous ranges and runs them on up to `parts` threads
    /// (`parallelRanges` without the slot).
    static func parallelChunks(_ count: Int, parts: Int, align: Int = 1, _ body: (Range<Int>) -> Void) {
        parallelRanges(count, parts: parts, align: align) { _, range in body(range) }
    }

    /// Grains of work per thread in `parallelRanges`: enough that a thread that finishes early
    /// can take over part of a slower one's share.
    static let grainsPerPart = 4

    /// Runs `body(slot, range)` over `0..<count` on up to `parts` threads, in contiguous ranges
    /// whose inner boundaries are multiples of `align` (a kernel's row tile). Slot `k` (one of
    /// `0..<parts`, run by one thread at a time: it can index per-thread scratch) starts on the
    /// `k`-th share and then helps the others (`WorkerPool.runRanges`). One part: one call.
    static func parallelRanges(_ count: Int, parts: Int, align: Int = 1, _ body: (Int, Range<Int>) -> Void) {
        let units = (count + max(1, align) - 1) / max(1, align)
        let p = max(1, min(parts, units))
        if p == 1 { if count > 0 { body(0, 0..<count) }; return }
        if #available(macOS 15.0, iOS 18.0, tvOS 18.0, watchOS 11.0, visionOS 2.0, *) {
            WorkerPool.shared.runRanges(count, parts: p, grains: min(units, p * grainsPerPart), align: align, body)
            return
        }
        withoutActuallyEscaping(body) { body in
            let box = UncheckedSendableBox(body)
            DispatchQueue.concurrentPerform(iterations: p) { k in
                let lo = min(count, units * k / p * max(1, align)), hi = min(count, units * (k + 1) / p * max(1, align))
                if lo < hi { box.value(k, lo..<hi) }
            }
        }
    }

    /// Bytes a copy-like pass (pad, concatenation, slice, transpose, table lookup, clamp) must
    /// move before a second thread joins. The ops before it split their outputs over the same
    /// threads, so a copy left on one thread reads half its input from the other core's cache:
    /// yolox int8's 100–400 KB PAD, TRANSPOSE and CONCATENATION ran slower at 2 threads than at
    /// 1 under the former 512 KB. At 64 KB, paired 2-thread runs of the 18 shared models: 0.92–1.01×
    /// (yolov5n int8 0.92, yolox int8 0.96; AMD EPYC Zen 4).
    static let parallelCopyBytes = 1 << 16

    /// Runs a memory-bound element-wise pass over `0..<count` on up to `threads` threads:
    /// at least `minimumPerPart` elements a thread (below that one thread is faster than waking
    /// another), in `parallelRanges`' grains, their boundaries multiples of 64 elements. Each element is computed the same
    /// way on any thread, so results do not depend on the thread count.
    static func parallelElements(_ count: Int, threads: Int, minimumPerPart: Int = 1 << 14, _ body: (Range<Int>) -> Void) {
        let parts = max(1, min(threads, count / max(minimumPerPart, 1)))
        if parts == 1 { if count > 0 { body(0..<count) }; return }
        parallelChunks(count, parts: parts, align: 64, body)
    }

    /// Clamps every lane (inlined; the generic `pointwiseMin`/`Max` are not always).
    @inline(__always)
    static func clamp(_ v: SIMD8<Float>, _ lo: SIMD8<Float>, _ hi: SIMD8<Float>) -> SIMD8<Float> {
        var r = v
        r.replace(with: lo, where: r .< lo)
        r.replace(with: hi, where: r .> hi)
        return r
    }

    /// float16 bits → Float.
    @inline(__always)
    static func halfToFloat(_ bits: UInt16) -> Float {
        Float(Float16(bitPattern: bits))
    }

    /// float16 bits → Float for `count` values, 8 per step in vector integer and float
    /// arithmetic: without F16C, `Float(Float16)` is a library call per value (5% of
    /// palm_detection_lite's load went to it). Same values as `halfToFloat(_:)`; NaNs stay NaN
    /// with their payload. Example: bits 0x3C00, 0xC000, 0x0001 give 1, −2, 2⁻²⁴.
    static func halfToFloat(_ source: UnsafePointer<UInt16>, _ destination: UnsafeMutablePointer<Float>, count: Int) {
        var i = 0
        while i + 8 <= count {
            let h = UnsafeRawPointer(source + i).loadUnaligned(as: SIMD8<UInt16>.self)
            let wide = SIMD8<UInt32>(UInt32(h[0]), UInt32(h[1]), UInt32(h[2]), UInt32(h[3]),
                                     UInt32(h[4]), UInt32(h[5]), UInt32(h[6]), UInt32(h[7]))
            UnsafeMutableRawPointer(destination + i).storeBytes(of: halfToFloat8(wide), as: SIMD8<Float>.self)
            i += 8
        }
        while i < count { destination[i] = halfToFloat(source[i]); i += 1 }
    }

    /// Eight float16 bit patterns (in the low 16 bits of each lane) as Floats. The exponent and
    /// mantissa moved to a Float's positions read as a Float 2¹¹² too small, for normal and
    /// subnormal halves alike (the product by 2¹¹² is exact); infinities and NaNs (exponent 31)
    /// take the Float's all-ones exponent instead.
    @inline(__always)
    static func halfToFloat8(_ h: SIMD8<UInt32>) -> SIMD8<Float> {
        let sign = (h & 0x8000) &<< 16
        let magnitude = (h & 0x7FFF) &<< 13
        let scaled = unsafeBitCast(magnitude, to: SIMD8<Float>.self) * Float(bitPattern: 0x7780_0000)
        // All ones below exponent 31, else 0, by an arithmetic shift (SSE2 has no unsigned
        // compare; a mask select became a per-lane loop).
        let finite = unsafeBitCast((unsafeBitCast(magnitude, to: SIMD8<Int32>.self) &- 0x0F80_0000) &>> 31, to: SIMD8<UInt32>.self)
        let bits = unsafeBitCast(scaled, to: SIMD8<UInt32>.self) & finite | (magnitude | 0x7F80_0000) & ~finite
        return unsafeBitCast(bits | sign, to: SIMD8<Float>.self)
    }
}

extension PrepareContext {
    /// Requires an input of one of the given types.
    package func input(_ i: Int, types: [TensorDataType]) throws -> TensorInfo {
        let t = try input(i)
        guard types.contains(t.type) else {
            throw invalid("input \(i) has type \(t.type), expected \(types.map(\.name).joined(separator: " or "))")
        }
        return t
    }

    /// Requires an input of a given rank.
    package func input(_ i: Int, rank: Int, types: [TensorDataType]) throws -> TensorInfo {
        let t = try input(i, types: types)
        guard t.rank == rank else { throw invalid("input \(i) must have rank \(rank), has shape \(t.shape)") }
        return t
    }
}

/// Carries a non-Sendable value (a kernel's loop body over raw tensor pointers) into
/// `concurrentPerform`; the kernels guarantee the threads write disjoint memory.
struct UncheckedSendableBox<T>: @unchecked Sendable {
    let value: T
    init(_ value: T) { self.value = value }
}
