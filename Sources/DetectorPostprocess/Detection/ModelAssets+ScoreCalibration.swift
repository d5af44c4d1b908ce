import DetectorModelFile
import DetectorImage
import Foundation

/// Score calibration read from a model's metadata: the options and the
/// `TENSOR_AXIS_SCORE_CALIBRATION` file become a `ScoreCalibration`.
extension ModelAssets {
    /// The score calibration of output `index` (options + the TENSOR_AXIS_SCORE_CALIBRATION file).
    package func scoreCalibration(forOutput index: Int) throws -> ScoreCalibration? {
        guard let meta = outputMetadata(index), let options = meta.scoreCalibration else { return nil }
        guard let file = meta.associatedFiles.first(where: { $0.type == .tensorAxisScoreCalibration }) else {
            throw TFLiteModelError.missing(what: "score calibration file of output \(index)")
        }
        guard let bytes = try archive?.contents(named: file.name) else {
            throw TFLiteModelError.missing(what: "associated file '\(file.name)' in the model's ZIP archive")
        }
        let transformation: ScoreCalibration.Transformation
        switch options.transformation {
        case .identity: transformation = .identity
        case .log: transformation = .log
        case .inverseLogistic: transformation = .inverseLogistic
        }
        return try ScoreCalibration(transformation: transformation, defaultScore: options.defaultScore,
                                    fileContents: String(decoding: bytes, as: UTF8.self))
    }

    /// The first output score calibration found, with its output index.
    package func scoreCalibration() throws -> (output: Int, calibration: ScoreCalibration)? {
        let count = metadata?.subgraphs.first?.outputTensors.count ?? 0
        for i in 0..<count {
            if let c = try scoreCalibration(forOutput: i) { return (i, c) }
        }
        return nil
    }
}
