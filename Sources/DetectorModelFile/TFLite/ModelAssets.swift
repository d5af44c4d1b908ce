import DetectorZlib
/// Everything a model carries besides its graph: the TFLite metadata and the files of the
/// appended ZIP archive (label maps in one or more locales, score-calibration files).
/// A model without metadata or archive reads fine and simply has none.
///
/// ```swift
/// let model = try TFLiteModel(contentsOfFile: "detect.tflite")
/// let assets = try ModelAssets(model: model)
/// let labels = try assets.labels(locale: "en") ?? []
/// ```
package struct ModelAssets: Sendable {
    package let metadata: ModelMetadata?
    package let archive: ZipArchive?

    package init(model: TFLiteModel) throws {
        metadata = try ModelMetadata(model: model)
        archive = try ZipArchive(storage: model.storage)
    }

    package init(metadata: ModelMetadata?, archive: ZipArchive?) {
        self.metadata = metadata
        self.archive = archive
    }

    /// Metadata of output `index` of subgraph 0.
    package func outputMetadata(_ index: Int) -> TensorMetadata? {
        guard let outs = metadata?.subgraphs.first?.outputTensors, index >= 0, index < outs.count else { return nil }
        return outs[index]
    }

    /// The label file of output `index` (TENSOR_AXIS_LABELS or TENSOR_VALUE_LABELS) for `locale`:
    /// the file whose locale matches (exactly, else by language), else the first one.
    package func labelFile(forOutput index: Int, locale: String? = nil) -> AssociatedFileInfo? {
        let files = (outputMetadata(index)?.associatedFiles ?? []).filter {
            $0.type == .tensorAxisLabels || $0.type == .tensorValueLabels
        }
        guard !files.isEmpty else { return nil }
        if let locale {
            if let exact = files.first(where: { $0.locale == locale }) { return exact }
            let language = locale.split(separator: "-").first.map(String.init) ?? locale
            if let near = files.first(where: { ($0.locale?.split(separator: "-").first).map(String.init) == language }) { return near }
        }
        return files[0]
    }

    /// Locales that label files of output `index` are available in.
    package func labelLocales(forOutput index: Int) -> [String] {
        (outputMetadata(index)?.associatedFiles ?? []).compactMap {
            ($0.type == .tensorAxisLabels || $0.type == .tensorValueLabels) ? $0.locale : nil
        }
    }

    /// The labels of output `index` in `locale` (see `labelFile`), or nil when it has none.
    /// Ultralytics metadata files (`{'names': {0: 'person', …}}`) yield their class names.
    package func labels(forOutput index: Int, locale: String? = nil) throws -> [String]? {
        guard let file = labelFile(forOutput: index, locale: locale) else { return nil }
        return try labels(in: file)
    }

    /// The labels of the first output that has a label file.
    package func labels(locale: String? = nil) throws -> [String]? {
        let count = metadata?.subgraphs.first?.outputTensors.count ?? 0
        for i in 0..<count {
            if let l = try labels(forOutput: i, locale: locale) { return l }
        }
        return nil
    }

    /// The labels in `file`, read from the archive.
    package func labels(in file: AssociatedFileInfo) throws -> [String]? {
        guard let bytes = try archive?.contents(named: file.name) else { return nil }
        let firstVisible = bytes.first { $0 != 0x20 && $0 != 0x0A && $0 != 0x0D && $0 != 0x09 }
        if firstVisible == UInt8(ascii: "{"), let names = LabelFile.parseUltralyticsNames(bytes) {
            return names
        }
        return LabelFile.parseLines(bytes)
    }

    /// The recommended score threshold of the first output that has one.
    package var scoreThreshold: Float? {
        for t in metadata?.subgraphs.first?.outputTensors ?? [] {
            if let s = t.scoreThreshold { return s }
        }
        return nil
    }
}
