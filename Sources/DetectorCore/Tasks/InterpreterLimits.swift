import DetectorPostprocess
import DetectorInterpreter
import DetectorImage
import DetectorModelFile
import DetectorZlib
import DetectorPlatform
/// The interpreter's resource limits as the tasks' options take them.
extension Interpreter.Options {
    /// Checks limits given to a task's options (both must be positive).
    static func validateLimits(maxArenaBytes: Int, maxMultiplyAccumulates: Int) throws(TaskError) {
        if maxArenaBytes < 1 {
            throw TaskError.invalidOption(name: .maxArenaBytes, reason: "value must be at least 1, got \(maxArenaBytes)")
        }
        if maxMultiplyAccumulates < 1 {
            throw TaskError.invalidOption(name: .maxMultiplyAccumulates, reason: "value must be at least 1, got \(maxMultiplyAccumulates)")
        }
    }
}
