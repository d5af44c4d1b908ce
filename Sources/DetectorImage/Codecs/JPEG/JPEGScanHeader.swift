import DetectorZlib
import DetectorPlatform
/// One SOS segment: the components of the scan and its spectral / approximation parameters.
struct JPEGScanHeader {
    struct Member {
        /// Index into `JPEGFrame.components`.
        var componentIndex: Int
        var dcTable: Int
        var acTable: Int
    }
    var members: [Member]
    var spectralStart: Int
    var spectralEnd: Int
    var approximationHigh: Int
    var approximationLow: Int
}
