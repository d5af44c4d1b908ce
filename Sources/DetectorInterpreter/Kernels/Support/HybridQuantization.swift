import DetectorModelFile
import DetectorPlatform
import Foundation

/// On-the-fly input quantization of the hybrid (float activations, int8 weights) kernels,
/// with the official runtime's arithmetic (`tensor_utils::SymmetricQuantizeFloats` and
/// `AsymmetricQuantizeFloats`, portable versions).
///
/// `symmetric` and `asymmetric` run the kernel-table entry they are given (`HybridKernels`: the
/// tier modules' 16-lane `TierHybrid.range`/`quantize`, the same values at every tier) and split large
/// inputs (`parallelMinimum` values or more) over `threads`: the range as per-chunk minima and
/// maxima combined (exact), the quantization in chunks. With `unsignedBytes` they write
/// `q + 128` (`q` XOR 0x80: the byte GEMM's unsigned input) instead of `q`.
enum HybridQuantization {
    /// The input size from which range and quantization are split over the threads.
    static let parallelMinimum = 1 << 16

    /// Symmetric: scale = max|x| / 127, q = round(x · 127 / max|x|) clamped to ±127
    /// (round half away from zero). All-zero input → q = 0, scale 1.
    static func symmetric(_ x: UnsafePointer<Float>, count: Int, into q: UnsafeMutablePointer<Int8>,
                          tier: InstructionSetTier = .baseline, threads: Int = 1, unsignedBytes: Bool = false) -> Float {
        symmetric(x, count: count, into: q, kernels: KernelTable.for(tier).hybrid, threads: threads, unsignedBytes: unsignedBytes)
    }

    /// `symmetric` on the kernel-table entry `kernels`.
    static func symmetric(_ x: UnsafePointer<Float>, count: Int, into q: UnsafeMutablePointer<Int8>,
                          kernels: HybridKernels, threads: Int = 1, unsignedBytes: Bool = false) -> Float {
        if count == 0 { return 1 }
        let (lo, hi) = range(x, count: count, kernels: kernels, threads: threads)
        let range = max(abs(lo), abs(hi))
        if range == 0 {
            q.update(repeating: unsignedBytes ? Int8(bitPattern: 0x80) : 0, count: count)
            return 1
        }
        let scale = range / 127
        let inverse = 127 / range
        quantize(x, count: count, inverse: inverse, offset: nil, lo: -127, hi: 127, into: q, kernels: kernels, threads: threads,
                 unsignedBytes: unsignedBytes)
        return scale
    }

    /// Asymmetric over [min(0, min x), max(0, max x)] to int8 [-128, 127] with a nudged zero
    /// point (computed in double like the runtime); q = round(offset + x / scale) clamped.
    static func asymmetric(_ x: UnsafePointer<Float>, count: Int, into q: UnsafeMutablePointer<Int8>,
                           tier: InstructionSetTier = .baseline, threads: Int = 1,
                           unsignedBytes: Bool = false) -> (scale: Float, offset: Int32) {
        asymmetric(x, count: count, into: q, kernels: KernelTable.for(tier).hybrid, threads: threads, unsignedBytes: unsignedBytes)
    }

    /// `asymmetric` on the kernel-table entry `kernels`.
    static func asymmetric(_ x: UnsafePointer<Float>, count: Int, into q: UnsafeMutablePointer<Int8>,
                           kernels: HybridKernels, threads: Int = 1,
                           unsignedBytes: Bool = false) -> (scale: Float, offset: Int32) {
        if count == 0 { return (1, 0) }
        let (lo, hi) = range(x, count: count, kernels: kernels, threads: threads)
        let rmin = Double(min(0, lo)), rmax = Double(max(0, hi))
        if rmin == rmax {
            q.update(repeating: unsignedBytes ? Int8(bitPattern: 0x80) : 0, count: count)
            return (1, 0)
        }
        let qmin = -128.0, qmax = 127.0
        let scaleD = (rmax - rmin) / (qmax - qmin)
        let zpFromMin = qmin - rmin / scaleD
        let zpFromMax = qmax - rmax / scaleD
        let errMin = abs(qmin) + abs(rmin / scaleD)
        let errMax = abs(qmax) + abs(rmax / scaleD)
        let zp = errMin < errMax ? zpFromMin : zpFromMax
        let nudged: Int32
        // An infinite input makes the range infinite and zp NaN: no meaningful offset, but no trap.
        if zp.isNaN { nudged = 0 } else if zp <= qmin { nudged = -128 } else if zp >= qmax { nudged = 127 } else {
            nudged = Int32(zp.rounded(.toNearestOrAwayFromZero))
        }
        let scale = Float(scaleD)
        let inverse = 1 / scale
        quantize(x, count: count, inverse: inverse, offset: Float(nudged), lo: -128, hi: 127, into: q, kernels: kernels,
                 threads: threads, unsignedBytes: unsignedBytes)
        return (scale, nudged)
    }

    /// `range` at `tier`, over `threads` when `count ≥ parallelMinimum` (each chunk's minimum
    /// and maximum, then theirs: the same values, NaNs never win a comparison).
    static func range(_ x: UnsafePointer<Float>, count: Int, tier: InstructionSetTier, threads: Int) -> (lo: Float, hi: Float) {
        range(x, count: count, kernels: KernelTable.for(tier).hybrid, threads: threads)
    }

    /// `range` on the kernel-table entry `kernels`, over `threads` when `count ≥ parallelMinimum`.
    static func range(_ x: UnsafePointer<Float>, count: Int, kernels: HybridKernels, threads: Int) -> (lo: Float, hi: Float) {
        let parts = count >= parallelMinimum ? min(max(1, threads), 64) : 1
        if parts == 1 { return kernels.range(x, count) }
        return withUnsafeTemporaryAllocation(of: Float.self, capacity: 2 * parts) { bounds in
            bounds.initialize(repeating: 0)
            KernelSupport.parallelFor(parts, threads: parts) { part in
                let begin = count * part / parts, end = count * (part + 1) / parts
                let r = kernels.range(x + begin, end - begin)
                bounds[2 * part] = r.lo; bounds[2 * part + 1] = r.hi
            }
            var lo = bounds[0], hi = bounds[1]
            for part in 1..<parts { lo = min(lo, bounds[2 * part]); hi = max(hi, bounds[2 * part + 1]) }
            return (lo, hi)
        }
    }

    /// `quantize` at `tier` (see the `kernels:` form).
    static func quantize(_ x: UnsafePointer<Float>, count: Int, inverse: Float, offset: Float?, lo: Float, hi: Float,
                         into q: UnsafeMutablePointer<Int8>, tier: InstructionSetTier, threads: Int, unsignedBytes: Bool) {
        quantize(x, count: count, inverse: inverse, offset: offset, lo: lo, hi: hi, into: q, kernels: KernelTable.for(tier).hybrid,
                 threads: threads, unsignedBytes: unsignedBytes)
    }

    /// `quantize` on the kernel-table entry `kernels`, in chunks over `threads` when
    /// `count ≥ parallelMinimum`; with `unsignedBytes`, `q + 128` as bytes.
    static func quantize(_ x: UnsafePointer<Float>, count: Int, inverse: Float, offset: Float?, lo: Float, hi: Float,
                         into q: UnsafeMutablePointer<Int8>, kernels: HybridKernels, threads: Int, unsignedBytes: Bool) {
        let parts = count >= parallelMinimum ? min(max(1, threads), 64) : 1
        let shift: Int32 = unsignedBytes ? 128 : 0
        KernelSupport.parallelChunks(count, parts: parts) { chunk in
            kernels.quantize(x + chunk.lowerBound, chunk.count, inverse, offset ?? 0, offset != nil, lo, hi, shift,
                             UnsafeMutableRawPointer(q + chunk.lowerBound))
        }
    }

    /// `quantize` one value at a time with `rounded(.toNearestOrAwayFromZero)` (the test oracle of
    /// the tier kernels' `TierHybrid.quantize`).
    static func quantizeScalar(_ x: UnsafePointer<Float>, count: Int, inverse: Float, offset: Float?, lo: Float, hi: Float,
                               into q: UnsafeMutablePointer<Int8>) {
        for i in 0..<count {
            let v = ((offset.map { $0 + x[i] * inverse }) ?? x[i] * inverse).rounded(.toNearestOrAwayFromZero)
            q[i] = v.isNaN ? 0 : Int8(max(lo, min(hi, v)))
        }
    }
}
