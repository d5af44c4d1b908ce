import DetectorPostprocess
import DetectorInterpreter
import DetectorImage
import DetectorModelFile
import DetectorZlib
import DetectorPlatform
/// The option checks every task shares (MediaPipe's rules), with the Swift property names in
/// the messages.
enum TaskOptionChecks {
    /// The sentence for an allowlist and a denylist set together.
    static let exclusiveLists: OptionText = "\(option: .categoryAllowlist) and \(option: .categoryDenylist) are mutually exclusive options."

    /// Allow/deny lists exclusive, max results != 0 (or −1 for all), 1…256 threads, a finite threshold.
    static func checkCommon(allowlist: [String], denylist: [String], maxResults: Int?,
                            threadCount: Int, threshold: Float?, thresholdName: TaskOption) throws(TaskError) {
        if !allowlist.isEmpty && !denylist.isEmpty {
            throw TaskError.conflictingOptions(exclusiveLists)
        }
        if let m = maxResults, m < 1 {
            throw TaskError.invalidOption(name: .maxResults, reason: "value must be at least 1, or nil for no limit")
        }
        if threadCount < 1 || threadCount > 256 {
            throw TaskError.invalidOption(name: .threadCount, reason: "value must be between 1 and 256")
        }
        try checkFinite(threshold, name: thresholdName)
    }

    static func checkFinite(_ value: Float?, name: TaskOption) throws(TaskError) {
        if let t = value, !t.isFinite {
            throw TaskError.invalidOption(name: name, reason: "value must be a finite number")
        }
    }
}
