/// The element-wise float functions of LOGISTIC, SiLU (and SOFTMAX, below) at this tier's lanes (`MathLanes`),
/// `dst[i] = f(src[i])` for `count` values (`src` may equal `dst`), four 16-lane vectors per
/// step as one `LaneQuad` and the last values through masked loads and stores. Each value gets `LaneMath`'s
/// arithmetic, which does not depend on the lane count or the position, so every tier and
/// every split over threads gives the same bits as DetectorInterpreter's 8-lane
/// `FloatVectorMath` (the oracle in `ElementwiseTierTests`).
///
/// ```swift
/// TierElementwise.logistic(x, y, count: n)   // y[i] = LOGISTIC(x[i]), the reference's formula
/// ```
package enum TierElementwise {
    /// LOGISTIC with the reference kernel's formula and cut-offs (`LaneMath.logistic`).
    package static func logistic(_ src: UnsafePointer<Float>, _ dst: UnsafeMutablePointer<Float>, count: Int) {
        map(src, dst, count) { LaneMath.logistic($0) }
    }

    /// LOGISTIC within 4e-7 relative (`LaneMath.fastLogistic`), for graphs that need no
    /// reference rounding.
    package static func fastLogistic(_ src: UnsafePointer<Float>, _ dst: UnsafeMutablePointer<Float>, count: Int) {
        map(src, dst, count) { LaneMath.fastLogistic($0) }
    }

    /// x · logistic(x) with LOGISTIC's and MUL's roundings.
    package static func logisticProduct(_ src: UnsafePointer<Float>, _ dst: UnsafeMutablePointer<Float>, count: Int) {
        map(src, dst, count) { $0 * LaneMath.logistic($0) }
    }

    /// SiLU within 4e-7 relative (`LaneMath.silu`).
    package static func silu(_ src: UnsafePointer<Float>, _ dst: UnsafeMutablePointer<Float>, count: Int) {
        map(src, dst, count) { LaneMath.silu($0) }
    }

    /// Same-shape ADD (`op` 0), SUB (1) or MUL (2): `o[i] = a[i] ∘ b[i]`, one rounding, then
    /// with `clamps` the activation's `min(max(·, lo), hi)` (NaN kept), 16 lanes a step and the
    /// last values masked: the element loop's values at any lane count. (In DetectorInterpreter's
    /// SSE2 loop, face_detection_short_range's 16 residual ADDs were an eighth of the model on an
    /// Intel Xeon, compare-and-blend clamps included.)
    package static func binary(_ op: Int, _ a: UnsafePointer<Float>, _ b: UnsafePointer<Float>, _ o: UnsafeMutablePointer<Float>,
                               count: Int, lo: Float, hi: Float, clamps: Bool) {
        switch (op, clamps) {
        case (0, false): zip(a, b, o, count, lo, hi, false) { $0 + $1 }
        case (0, true): zip(a, b, o, count, lo, hi, true) { $0 + $1 }
        case (1, false): zip(a, b, o, count, lo, hi, false) { $0 - $1 }
        case (1, true): zip(a, b, o, count, lo, hi, true) { $0 - $1 }
        case (2, false): zip(a, b, o, count, lo, hi, false) { $0 * $1 }
        default: zip(a, b, o, count, lo, hi, true) { $0 * $1 }
        }
    }

    @inline(__always)
    private static func zip(_ a: UnsafePointer<Float>, _ b: UnsafePointer<Float>, _ o: UnsafeMutablePointer<Float>, _ count: Int,
                            _ lo: Float, _ hi: Float, _ clamps: Bool, _ f: (SIMD16<Float>, SIMD16<Float>) -> SIMD16<Float>) {
        let vlo = SIMD16<Float>(repeating: lo), vhi = SIMD16<Float>(repeating: hi)
        var i = 0
        while i &+ 16 <= count {
            var v = f(UnsafeRawPointer(a + i).loadUnaligned(as: SIMD16<Float>.self),
                      UnsafeRawPointer(b + i).loadUnaligned(as: SIMD16<Float>.self))
            if clamps { v = TierMath.clamp(v, lo: vlo, hi: vhi) }
            UnsafeMutableRawPointer(o + i).storeBytes(of: v, as: SIMD16<Float>.self)
            i &+= 16
        }
        if i < count {
            let n = count &- i
            var v = f(TierMath.load(a + i, count: n), TierMath.load(b + i, count: n))
            if clamps { v = TierMath.clamp(v, lo: vlo, hi: vhi) }
            TierMath.store(v, to: o + i, count: n)
        }
    }

    /// SOFTMAX over `rows` rows of `depth` values: `dst = exp((src - max) · beta) / Σ` per row,
    /// with `LaneMath.exp` on every value; the sum adds the lanes of 16-value vectors (the last
    /// values masked in), then folds the 16 lane sums in a fixed order, so every tier gives the
    /// same bits. (Measured on yolov8n's 33,600 rows of 16: 2.24 ms with scalar `expf`, 1.40
    /// with 8 lanes in DetectorInterpreter, AMD EPYC Zen 4.)
    package static func softmax(_ src: UnsafePointer<Float>, _ dst: UnsafeMutablePointer<Float>, rows: Int, depth: Int,
                                beta: Float) {
        guard depth > 0 else { return }
        var lanes = SIMD16<Float>()
        for k in 0..<16 { lanes[k] = Float(k) }
        var r = 0
        if depth <= 16 {
            // One vector per row: four rows per step, their exponentials as one `LaneQuad`
            // (one row's chain alone is latency-bound).
            let valid = LaneMath.negativeMask(lanes - SIMD16<Float>(repeating: Float(depth)))
            while r &+ 4 <= rows {
                shortRows(src + r &* depth, dst + r &* depth, depth: depth, beta: beta, valid: valid)
                r &+= 4
            }
            while r < rows {
                shortRow(src + r &* depth, dst + r &* depth, depth: depth, beta: beta, valid: valid)
                r &+= 1
            }
            return
        }
        while r < rows {
            softmaxRow(src + r &* depth, dst + r &* depth, depth: depth, beta: beta, lanes: lanes)
            r &+= 1
        }
    }

    /// A row of at most 16 values, `valid` marking its lanes: the same arithmetic as
    /// `softmaxRow` (its maximum, exponentials, lane sums and division), without loops.
    @inline(__always)
    private static func shortRow(_ s: UnsafePointer<Float>, _ d: UnsafeMutablePointer<Float>, depth: Int, beta: Float,
                                 valid: SIMD16<Float>.MaskStorage) {
        let x = shortRowArgument(s, depth: depth, beta: beta, valid: valid)
        shortRowStore(LaneMath.exp(x), d, depth: depth, valid: valid)
    }

    /// Four consecutive short rows (`shortRow`), their exponentials as one `LaneQuad`.
    @inline(__always)
    private static func shortRows(_ s: UnsafePointer<Float>, _ d: UnsafeMutablePointer<Float>, depth: Int, beta: Float,
                                  valid: SIMD16<Float>.MaskStorage) {
        let e = LaneMath.exp(LaneQuad(shortRowArgument(s, depth: depth, beta: beta, valid: valid),
                                      shortRowArgument(s + depth, depth: depth, beta: beta, valid: valid),
                                      shortRowArgument(s + 2 &* depth, depth: depth, beta: beta, valid: valid),
                                      shortRowArgument(s + 3 &* depth, depth: depth, beta: beta, valid: valid)))
        shortRowStore(e.a, d, depth: depth, valid: valid)
        shortRowStore(e.b, d + depth, depth: depth, valid: valid)
        shortRowStore(e.c, d + 2 &* depth, depth: depth, valid: valid)
        shortRowStore(e.d, d + 3 &* depth, depth: depth, valid: valid)
    }

    /// (x − max) · beta for a short row.
    @inline(__always)
    private static func shortRowArgument(_ s: UnsafePointer<Float>, depth: Int, beta: Float,
                                         valid: SIMD16<Float>.MaskStorage) -> SIMD16<Float> {
        let x = TierMath.load(s, count: depth)
        let floor = SIMD16<Float>(repeating: -Float.greatestFiniteMagnitude)
        let xm = LaneMath.select(valid, x, floor)
        let h8 = maximum(xm.lowHalf, xm.highHalf), h4 = maximum(h8.lowHalf, h8.highHalf)
        let m = Swift.max(Swift.max(h4.x, h4.y), Swift.max(h4.z, h4.w))
        return (x - SIMD16<Float>(repeating: m)) * SIMD16<Float>(repeating: beta)
    }

    /// A short row's exponentials `e` (invalid lanes dropped) divided by their sum.
    @inline(__always)
    private static func shortRowStore(_ e: SIMD16<Float>, _ d: UnsafeMutablePointer<Float>, depth: Int,
                                      valid: SIMD16<Float>.MaskStorage) {
        let e = LaneMath.select(valid, e, SIMD16<Float>())
        let s8 = e.lowHalf + e.highHalf, s4 = s8.lowHalf + s8.highHalf, s2 = s4.lowHalf + s4.highHalf
        TierMath.store(e / SIMD16<Float>(repeating: s2.x + s2.y), to: d, count: depth)
    }

    @inline(__always)
    private static func softmaxRow(_ s: UnsafePointer<Float>, _ d: UnsafeMutablePointer<Float>, depth: Int, beta: Float,
                                   lanes: SIMD16<Float>) {
        let full = depth & ~15
        var m = -Float.greatestFiniteMagnitude
        if full > 0 {
            var vm = TierMath.load(s, count: 16)
            var i = 16
            while i < full {
                let v = TierMath.load(s + i, count: 16)
                vm = LaneMath.select(LaneMath.negativeMask(vm - v), v, vm)
                i &+= 16
            }
            // The lanes' maximum by halves (extracting 16 lanes one by one cost more than the
            // row's exponentials at depth 16).
            let h8 = maximum(vm.lowHalf, vm.highHalf), h4 = maximum(h8.lowHalf, h8.highHalf)
            m = Swift.max(Swift.max(h4.x, h4.y), Swift.max(h4.z, h4.w))
        }
        for i in full..<depth { m = Swift.max(m, s[i]) }
        let vmax = SIMD16<Float>(repeating: m), vbeta = SIMD16<Float>(repeating: beta)
        var vsum = SIMD16<Float>()
        var i = 0
        while i < full {
            let e = LaneMath.exp((TierMath.load(s + i, count: 16) - vmax) * vbeta)
            TierMath.store(e, to: d + i, count: 16)
            vsum += e
            i &+= 16
        }
        let tail = depth &- full
        if tail > 0 {
            var e = LaneMath.exp((TierMath.load(s + full, count: tail) - vmax) * vbeta)
            e = LaneMath.select(LaneMath.negativeMask(lanes - SIMD16<Float>(repeating: Float(tail))), e, SIMD16<Float>())
            TierMath.store(e, to: d + full, count: tail)
            vsum += e
        }
        let h8 = vsum.lowHalf + vsum.highHalf, h4 = h8.lowHalf + h8.highHalf, h2 = h4.lowHalf + h4.highHalf
        let vtotal = SIMD16<Float>(repeating: h2.x + h2.y)
        i = 0
        while i < depth {
            let width = Swift.min(16, depth &- i)
            TierMath.store(TierMath.load(UnsafePointer(d + i), count: width) / vtotal, to: d + i, count: width)
            i &+= 16
        }
    }

    /// Lane-wise maximum by the sign of the difference, as `LaneMath.select` does.
    @inline(__always)
    private static func maximum(_ a: SIMD8<Float>, _ b: SIMD8<Float>) -> SIMD8<Float> {
        let below = unsafeBitCast(a - b, to: SIMD8<Int32>.self) &>> 31
        let ai = unsafeBitCast(a, to: SIMD8<Int32>.self), bi = unsafeBitCast(b, to: SIMD8<Int32>.self)
        return unsafeBitCast((bi & below) | (ai & ~below), to: SIMD8<Float>.self)
    }

    @inline(__always)
    private static func maximum(_ a: SIMD4<Float>, _ b: SIMD4<Float>) -> SIMD4<Float> {
        let below = unsafeBitCast(a - b, to: SIMD4<Int32>.self) &>> 31
        let ai = unsafeBitCast(a, to: SIMD4<Int32>.self), bi = unsafeBitCast(b, to: SIMD4<Int32>.self)
        return unsafeBitCast((bi & below) | (ai & ~below), to: SIMD4<Float>.self)
    }

    /// `f` maps a `LaneQuad` (64 values); the last values (under 64) fill one quad, the
    /// unused lanes zero, and only the valid ones are stored.
    @inline(__always)
    private static func map(_ src: UnsafePointer<Float>, _ dst: UnsafeMutablePointer<Float>, _ count: Int,
                            _ f: (LaneQuad) -> LaneQuad) {
        var i = 0
        while i &+ 64 <= count {
            let y = f(LaneQuad(TierMath.load(src + i, count: 16), TierMath.load(src + (i &+ 16), count: 16),
                               TierMath.load(src + (i &+ 32), count: 16), TierMath.load(src + (i &+ 48), count: 16)))
            TierMath.store(y.a, to: dst + i, count: 16); TierMath.store(y.b, to: dst + (i &+ 16), count: 16)
            TierMath.store(y.c, to: dst + (i &+ 32), count: 16); TierMath.store(y.d, to: dst + (i &+ 48), count: 16)
            i &+= 64
        }
        guard i < count else { return }
        @inline(__always) func width(_ k: Int) -> Int { max(0, min(16, count &- (i &+ 16 &* k))) }
        @inline(__always) func load(_ k: Int) -> SIMD16<Float> {
            width(k) > 0 ? TierMath.load(src + (i &+ 16 &* k), count: width(k)) : SIMD16<Float>()
        }
        let y = f(LaneQuad(load(0), load(1), load(2), load(3)))
        TierMath.store(y.a, to: dst + i, count: width(0))
        if width(1) > 0 { TierMath.store(y.b, to: dst + (i &+ 16), count: width(1)) }
        if width(2) > 0 { TierMath.store(y.c, to: dst + (i &+ 32), count: width(2)) }
        if width(3) > 0 { TierMath.store(y.d, to: dst + (i &+ 48), count: width(3)) }
    }
}
