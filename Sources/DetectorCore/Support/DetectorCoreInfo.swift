import DetectorPostprocess
import DetectorInterpreter
import DetectorImage
import DetectorModelFile
import DetectorZlib
import DetectorPlatform
/// What this build of DetectorCore is: its version and the kernels it runs on this CPU.
///
/// ```swift
/// print("DetectorCore \(DetectorCoreInfo.version), kernels \(DetectorCoreInfo.kernels)")
/// // DetectorCore 0.7.0-dev, kernels avx512+vbmi
/// ```
public enum DetectorCoreInfo {
    /// The package version (semantic versioning; "-dev" until a release is tagged).
    public static let version = "0.7.0-dev"

    /// The kernel table the interpreter's kernels run with (`KernelTable.best`, the table of `InstructionSetTier.best`:
    /// the best this CPU and OS support, lowered by `OBJDETECT_ISA`), with "+vbmi" when the
    /// AVX-512 tier also uses VBMI's byte table lookups and "+amx" when its byte GEMM runs on AMX
    /// tiles: "sse2", "avx2", "avx512", "avx512+vbmi", "avx512+vbmi+amx", "neon".
    public static var kernels: String { KernelTable.best.name }

    /// The processor architecture this build is for: "x86_64", "arm64" or "other".
    public static var architecture: String {
        #if arch(x86_64)
        return "x86_64"
        #elseif arch(arm64)
        return "arm64"
        #else
        return "other"
        #endif
    }
}
