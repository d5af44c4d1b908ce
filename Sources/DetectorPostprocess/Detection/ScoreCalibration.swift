import DetectorModelFile
import DetectorImage
import Foundation

/// Score calibration from TFLite metadata (`ScoreCalibrationOptions` + a
/// `TENSOR_AXIS_SCORE_CALIBRATION` file), computed as MediaPipe's
/// `ScoreCalibrationCalculator` does.
///
/// For class `i` with sigmoid `(scale, slope, offset, minScore?)`:
/// `calibrated = clamp(scale / (1 + exp(−(slope · T(score) + offset))), 0, scale)`,
/// where `T` is the transformation (`identity`, `log`, `inverseLogistic` =
/// `log(x) − log(1 − x)`; logs are clamped below 1e-16 MediaPipe's way). A class with
/// no parameters (an empty line), or a score below its `minScore`, gets `defaultScore`.
///
/// ```swift
/// let cal = try ScoreCalibration(transformation: .log, defaultScore: 0.2,
///                                fileContents: "0.9,0.5,0.1\n\n1.0,0.3,0.2,0.05")
/// let s = try cal.calibrate(score: 0.7, classIndex: 0)
/// ```
public struct ScoreCalibration: Sendable, Equatable {
    /// The metadata's `ScoreTransformationType`.
    public enum Transformation: String, Sendable, Codable {
        case identity = "IDENTITY"
        case log = "LOG"
        case inverseLogistic = "INVERSE_LOGISTIC"
    }

    /// One class's parameters.
    public struct Sigmoid: Sendable, Equatable, Codable {
        public var scale: Float
        public var slope: Float
        public var offset: Float
        public var minScore: Float?

        public init(scale: Float, slope: Float, offset: Float, minScore: Float? = nil) {
            self.scale = scale
            self.slope = slope
            self.offset = offset
            self.minScore = minScore
        }
    }

    public var transformation: Transformation
    public var defaultScore: Float
    /// Per class index; nil = no parameters for that class (→ `defaultScore`).
    public var sigmoids: [Sigmoid?]

    /// - Throws: `DetectionError.invalidScoreCalibration` when a scale is negative or there is no sigmoid.
    public init(transformation: Transformation, defaultScore: Float, sigmoids: [Sigmoid?]) throws {
        guard !sigmoids.isEmpty else {
            throw DetectionError.invalidScoreCalibration(line: nil, reason: "expected at least one sigmoid, found none")
        }
        for (i, s) in sigmoids.enumerated() {
            if let s, !(s.scale >= 0) {
                throw DetectionError.invalidScoreCalibration(line: i + 1, reason: "the scale parameter must be positive, found \(s.scale)")
            }
        }
        self.transformation = transformation
        self.defaultScore = defaultScore
        self.sigmoids = sigmoids
    }

    /// Parses the associated calibration file: one line per class index, `scale,slope,offset`
    /// or `scale,slope,offset,min_score`; an empty line means "no parameters". Lines are
    /// split on `\n` exactly as MediaPipe does (a trailing newline adds an empty entry).
    public init(transformation: Transformation, defaultScore: Float, fileContents: String) throws {
        guard !fileContents.isEmpty else {
            throw DetectionError.invalidScoreCalibration(line: nil, reason: "expected a non-empty score calibration file")
        }
        // "\r\n" is one Character in Swift; MediaPipe splits on '\n' and its number parser
        // ignores the '\r', so both end a line here.
        let lines = fileContents.split(omittingEmptySubsequences: false, whereSeparator: { $0 == "\n" || $0 == "\r\n" })
        guard lines.count <= DetectionLimits.maxBoxes else {
            throw DetectionError.tooLarge(what: "score calibration lines", count: lines.count, limit: DetectionLimits.maxBoxes)
        }
        var sigmoids: [Sigmoid?] = []
        sigmoids.reserveCapacity(lines.count)
        for (n, rawLine) in lines.enumerated() {
            let line = rawLine
            if line.isEmpty {
                sigmoids.append(nil)
                continue
            }
            let parts = line.split(separator: ",", omittingEmptySubsequences: false)
            guard parts.count == 3 || parts.count == 4 else {
                throw DetectionError.invalidScoreCalibration(line: n + 1, reason: "expected 3 or 4 comma-separated parameters, got \(parts.count)")
            }
            var values: [Float] = []
            for p in parts {
                let text = p.trimmingCharacters(in: .whitespaces)
                guard let v = Float(text) else {
                    throw DetectionError.invalidScoreCalibration(line: n + 1, reason: "could not parse \"\(text)\" as a number")
                }
                values.append(v)
            }
            guard values[0] >= 0 else {
                throw DetectionError.invalidScoreCalibration(line: n + 1, reason: "the scale parameter must be positive, found \(values[0])")
            }
            sigmoids.append(Sigmoid(scale: values[0], slope: values[1], offset: values[2],
                                    minScore: values.count == 4 ? values[3] : nil))
        }
        try self.init(transformation: transformation, defaultScore: defaultScore, sigmoids: sigmoids)
    }

    static let logScoreMinimum: Float = 1e-16

    /// MediaPipe's `ClampedLog`: `log(x)` above the threshold, mirrored below it.
    static func clampedLog(_ x: Float, _ threshold: Float) -> Float {
        if x < threshold {
            return Float(2.0 * Foundation.log(Double(threshold)) - Foundation.log(2.0 * Double(threshold) - Double(x)))
        }
        return Float(Foundation.log(Double(x)))
    }

    package func transform(_ x: Float) -> Float {
        switch transformation {
        case .identity: return x
        case .log: return Self.clampedLog(x, Self.logScoreMinimum)
        case .inverseLogistic:
            return Self.clampedLog(x, Self.logScoreMinimum) - Self.clampedLog(Float(1.0 - Double(x)), Self.logScoreMinimum)
        }
    }

    /// The calibrated score of `score` for class `classIndex`.
    /// - Throws: `DetectionError.calibrationIndexOutOfRange` for an index outside the table.
    public func calibrate(score: Float, classIndex: Int) throws -> Float {
        guard classIndex >= 0, classIndex < sigmoids.count else {
            throw DetectionError.calibrationIndexOutOfRange(index: classIndex, count: sigmoids.count)
        }
        guard let sigmoid = sigmoids[classIndex] else { return defaultScore }
        if let m = sigmoid.minScore, score < m { return defaultScore }
        let shifted = transform(score) * sigmoid.slope + sigmoid.offset
        var calibrated: Float
        if shifted >= 0 {
            calibrated = Float(Double(sigmoid.scale) / (1.0 + Foundation.exp(Double(-shifted))))
        } else {
            let e = Float(Foundation.exp(Double(shifted)))
            calibrated = Float(Double(sigmoid.scale * e) / (1.0 + Double(e)))
        }
        calibrated = min(calibrated, sigmoid.scale)
        return max(calibrated, 0)
    }
}
