import _Builtin_intrinsics.intel

/// Byte table lookups with AVX-512 VBMI, behind `QuantizedLookupTable.apply`: 64 bytes per
/// step, each looked up in a 256-byte table by two `vpermi2b` (entries 0–127 and 128–255,
/// indexed by the low 7 bits) and a blend on the top bit. A module of its own because VBMI
/// is not part of x86-64-v4: AVX-512 CPUs with VNNI but without VBMI (Cascade Lake) run the
/// AVX-512 tier's other kernels and the plain lookup loop.
package enum TierByteTable {
    /// `output[i] = table[input[i]]` for `i < count`; `table` holds 256 bytes.
    package static func apply(_ table: UnsafePointer<UInt8>, input: UnsafePointer<UInt8>,
                              output: UnsafeMutablePointer<UInt8>, count: Int) {
        let t = UnsafeRawPointer(table)
        let t0 = _mm512_loadu_si512(t), t1 = _mm512_loadu_si512(t + 64)
        let t2 = _mm512_loadu_si512(t + 128), t3 = _mm512_loadu_si512(t + 192)
        @inline(__always) func lookup(_ index: __m512i) -> __m512i {
            let low = _mm512_permutex2var_epi8(t0, index, t1)
            let high = _mm512_permutex2var_epi8(t2, index, t3)
            return _mm512_mask_blend_epi8(_mm512_movepi8_mask(index), low, high)
        }
        var i = 0
        while i &+ 64 <= count {
            _mm512_storeu_si512(UnsafeMutableRawPointer(output + i), lookup(_mm512_loadu_si512(UnsafeRawPointer(input + i))))
            i &+= 64
        }
        if i < count {
            let mask: __mmask64 = (1 << UInt64(count &- i)) &- 1
            let index = _mm512_maskz_loadu_epi8(mask, UnsafeRawPointer(input + i))
            _mm512_mask_storeu_epi8(UnsafeMutableRawPointer(output + i), mask, lookup(index))
        }
    }
}
