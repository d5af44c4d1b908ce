import DetectorModelFile
import DetectorImage
/// Why tracking results could not be scored. Each prints as one sentence.
public enum MOTEvaluationError: Error, Sendable, Equatable, CustomStringConvertible {
    /// A line does not hold `frame,id,x,y,w,h[,…]` with usable numbers.
    case malformedLine(line: Int, reason: String)
    /// The same identity appears twice in one frame of the ground truth or of the results.
    case duplicateID(sequence: String, file: FileRole, frame: Int, id: Int)
    /// An identity is negative (only confirmed tracks, with ids >= 0, may be written).
    case negativeID(sequence: String, file: FileRole, frame: Int, id: Int)
    /// A frame lies outside 1...length (the sequence's `seqLength`).
    case frameOutOfRange(sequence: String, file: FileRole, frame: Int, length: Int)
    /// Two sequences share a name.
    case duplicateSequence(String)

    /// Which of a sequence's two files a problem is in.
    public enum FileRole: String, Sendable, Equatable {
        /// The sequence's `gt.txt`.
        case groundTruth = "ground truth"
        /// The tracker's output.
        case results = "results"
    }

    public var description: String {
        switch self {
        case let .malformedLine(line, reason):
            return "MOTChallenge line \(line) is malformed: \(reason)."
        case let .duplicateID(sequence, file, frame, id):
            return "The \(file.rawValue) of \(sequence) has id \(id) more than once in frame \(frame)."
        case let .negativeID(sequence, file, frame, id):
            return "The \(file.rawValue) of \(sequence) has the negative id \(id) in frame \(frame) (write only confirmed tracks, ids >= 0)."
        case let .frameOutOfRange(sequence, file, frame, length):
            return "The \(file.rawValue) of \(sequence) has frame \(frame), outside the sequence's frames 1...\(length)."
        case let .duplicateSequence(name):
            return "Sequence \(name) is given more than once."
        }
    }
}
