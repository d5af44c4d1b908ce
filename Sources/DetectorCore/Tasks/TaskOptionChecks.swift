import DetectorPostprocess
import DetectorInterpreter
import DetectorImage
import DetectorModelFile
import DetectorZlib
import DetectorPlatform
/// The option checks every task shares (MediaPipe's rules), with the Swift property names in
/// the messages.
enum TaskOptionChecks {
    /// Allow/deny lists exclusive, max results != 0 (or −1 for all), 1…256 threads, a finite threshold.
    static func checkCommon(allowlist: [String], denylist: [String], maxResults: Int?, maxResultsName: String,
                            threadCount: Int, threshold: Float?, thresholdName: String) throws(TaskError) {
        if !allowlist.isEmpty && !denylist.isEmpty {
            throw TaskError.conflictingOptions("`categoryAllowlist` and `categoryDenylist` are mutually exclusive options.")
        }
        if let m = maxResults, m == 0 || m < -1 {
            throw TaskError.invalidOption(name: maxResultsName, reason: "value must be != 0 (or -1 for all)")
        }
        if threadCount < 1 || threadCount > 256 {
            throw TaskError.invalidOption(name: "threadCount", reason: "value must be between 1 and 256")
        }
        try checkFinite(threshold, name: thresholdName)
    }

    static func checkFinite(_ value: Float?, name: String) throws(TaskError) {
        if let t = value, !t.isFinite {
            throw TaskError.invalidOption(name: name, reason: "value must be a finite number")
        }
    }
}
