import DetectorZlib
import DetectorPlatform

/// The colour models a JPEG frame can hold, decided as libjpeg does (JFIF, Adobe APP14,
/// component ids).
enum JPEGColorModel: String {
    case gray, ycbcr, rgb, cmyk, ycck

    static func decide(componentCount: Int, componentIDs: [Int], jfif: Bool, adobeTransform: Int?) -> JPEGColorModel {
        switch componentCount {
        case 1:
            return .gray
        case 3:
            if jfif { return .ycbcr }
            if let t = adobeTransform { return t == 0 ? .rgb : .ycbcr }
            if componentIDs == [1, 2, 3] { return .ycbcr }
            if componentIDs == [82, 71, 66] { return .rgb }
            return .ycbcr
        default:
            if let t = adobeTransform, t != 0 { return .ycck }
            return .cmyk
        }
    }
}

/// libjpeg's YCbCr → RGB fixed-point tables (`jdcolor.c`, 16 fractional bits), and Pillow's
/// inverted-CMYK → RGB rule for 4-component files.
struct JPEGColorConverter {
    /// `(91881 * (cr - 128) + 32768) >> 16`
    let crToR: [Int32]
    /// `(116130 * (cb - 128) + 32768) >> 16`
    let cbToB: [Int32]
    /// `-46802 * (cr - 128)` (unscaled)
    let crToG: [Int32]
    /// `-22554 * (cb - 128) + 32768` (unscaled, rounding term included once)
    let cbToG: [Int32]

    static let shared = JPEGColorConverter()

    init() {
        crToR = (0..<256).map { (91881 * Int32($0 - 128) + 32768) >> 16 }
        cbToB = (0..<256).map { (116130 * Int32($0 - 128) + 32768) >> 16 }
        crToG = (0..<256).map { -46802 * Int32($0 - 128) }
        cbToG = (0..<256).map { -22554 * Int32($0 - 128) + 32768 }
    }

    @inline(__always)
    static func clamp(_ v: Int32) -> UInt8 {
        UInt8(truncatingIfNeeded: min(max(v, 0), 255))
    }

    /// Converts `width` pixels of Y, Cb, Cr rows into interleaved RGB with the decoder's JPEG
    /// kernels (`TierJPEG.ycbcrToRGB` of the table; the same bytes at every tier).
    @inline(__always)
    static func ycbcrToRGB(y: UnsafePointer<UInt8>, cb: UnsafePointer<UInt8>, cr: UnsafePointer<UInt8>,
                           out: UnsafeMutablePointer<UInt8>, width: Int, kernels: JPEGKernels = JPEGIDCT.kernels) {
        kernels.ycbcrToRGB(y, cb, cr, out, width)
    }

    /// `ycbcrToRGB` at `tier`.
    static func ycbcrToRGB(y: UnsafePointer<UInt8>, cb: UnsafePointer<UInt8>, cr: UnsafePointer<UInt8>,
                           out: UnsafeMutablePointer<UInt8>, width: Int, tier: InstructionSetTier) {
        ycbcrToRGB(y: y, cb: cb, cr: cr, out: out, width: width, kernels: JPEGKernels.for(tier))
    }

    /// The plain table version of `ycbcrToRGB` (libjpeg's `ycc_rgb_convert`): the test oracle.
    static func referenceYCbCrToRGB(y: UnsafePointer<UInt8>, cb: UnsafePointer<UInt8>, cr: UnsafePointer<UInt8>,
                                    out: UnsafeMutablePointer<UInt8>, width: Int,
                                    crToR: UnsafePointer<Int32>, cbToB: UnsafePointer<Int32>,
                                    crToG: UnsafePointer<Int32>, cbToG: UnsafePointer<Int32>) {
        var o = out
        for x in 0..<width {
            let luma = Int32(y[x])
            let b = Int(cb[x]), r = Int(cr[x])
            o[0] = clamp(luma &+ crToR[r])
            o[1] = clamp(luma &+ ((cbToG[b] &+ crToG[r]) &>> 16))
            o[2] = clamp(luma &+ cbToB[b])
            o += 3
        }
    }

    /// Pillow's conversion of Adobe-inverted CMYK samples (as libjpeg outputs them) to RGB:
    /// `t = (255 - c) * k + 128; R = k - (((t >> 8) + t) >> 8)`.
    @inline(__always)
    static func invertedCMYKToRGB(_ c: Int32, _ k: Int32) -> UInt8 {
        let t = (255 &- c) &* k &+ 128
        return clamp(k &- (((t &>> 8) &+ t) &>> 8))
    }
}
