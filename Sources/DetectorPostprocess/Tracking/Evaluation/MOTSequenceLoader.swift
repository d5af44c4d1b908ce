import DetectorModelFile
import DetectorImage
import Foundation

/// Why a ground-truth or results path could not be turned into sequences to score.
package struct MOTLoadError: Error, Equatable, CustomStringConvertible {
    package let message: String
    package init(_ message: String) { self.message = message }
    package var description: String { message }
}

/// Finds the sequences to score the way the reference scripts take them: ground truth as one
/// `gt.txt`, one sequence folder (`SEQ/gt/gt.txt` or `SEQ/gt.txt`, with `SEQ/seqinfo.ini`) or a
/// folder of sequence folders; results as one file or a folder of `SEQ.txt` files.
package enum MOTSequenceLoader {
    /// A sequence found on disk, before its files are read.
    package struct Location: Equatable {
        package var name: String
        package var groundTruth: URL
        package var results: URL
        /// `seqLength` of the sequence's `seqinfo.ini`, if it has one.
        package var length: Int?
    }

    /// The sequences under `gtPath` (all, or those named in `only`, which must all be there) with
    /// their results files, which must exist.
    package static func locate(groundTruth gtPath: String, results resultsPath: String,
                               only: [String]? = nil) throws(MOTLoadError) -> [Location] {
        let gt = URL(fileURLWithPath: gtPath), results = URL(fileURLWithPath: resultsPath)
        guard let gtIsFolder = isFolder(gt) else { throw MOTLoadError("no file or folder at \(gtPath)") }
        guard let resultsIsFolder = isFolder(results) else { throw MOTLoadError("no file or folder at \(resultsPath)") }
        var sequences: [(name: String, folder: URL?, file: URL)]
        if !gtIsFolder {
            sequences = [sequenceOfFile(gt)]
        } else if let file = groundTruthFile(in: gt) {
            sequences = [(gt.lastPathComponent, gt, file)]
        } else {
            let children = ((try? FileManager.default.contentsOfDirectory(atPath: gt.path)) ?? []).sorted()
            sequences = children.compactMap { child in
                let folder = gt.appendingPathComponent(child)
                return groundTruthFile(in: folder).map { (child, folder, $0) }
            }
            guard !sequences.isEmpty else {
                throw MOTLoadError("no sequences under \(gtPath) (expected SEQ/gt/gt.txt or SEQ/gt.txt)")
            }
        }
        if let only {
            for name in only where !sequences.contains(where: { $0.name == name }) {
                throw MOTLoadError("sequence \(name) is not under \(gtPath) (it has \(sequences.map(\.name).joined(separator: ", ")))")
            }
            sequences = sequences.filter { only.contains($0.name) }
        }
        if !resultsIsFolder && sequences.count > 1 {
            throw MOTLoadError("\(gtPath) holds \(sequences.count) sequences: give a results folder with one SEQ.txt each, not the file \(resultsPath)")
        }
        return try sequences.map { (sequence) throws(MOTLoadError) -> Location in
            var file = results
            if resultsIsFolder {
                file = results.appendingPathComponent(sequence.name + ".txt")
                guard isFolder(file) == false else { throw MOTLoadError("no results for \(sequence.name): \(file.path) is missing") }
            }
            return Location(name: sequence.name, groundTruth: sequence.file, results: file,
                            length: sequence.folder.flatMap { seqLength(in: $0) })
        }
    }

    /// Reads both files of a located sequence.
    package static func load(_ location: Location) throws -> MOTSequence {
        MOTSequence(name: location.name, groundTruth: try rows(location.groundTruth), results: try rows(location.results),
                    length: location.length)
    }

    /// `seqLength` of `folder/seqinfo.ini`, when it holds a whole number from 1 to `MOTBox.maxFrameNumber`.
    package static func seqLength(in folder: URL) -> Int? {
        guard let text = try? String(contentsOf: folder.appendingPathComponent("seqinfo.ini"), encoding: .utf8) else { return nil }
        for line in text.split(whereSeparator: \.isNewline) {
            let parts = line.split(separator: "=", maxSplits: 1)
            guard parts.count == 2, parts[0].trimmingCharacters(in: .whitespaces).lowercased() == "seqlength" else { continue }
            if let n = Int(parts[1].trimmingCharacters(in: .whitespaces)), n >= 1, n <= MOTBox.maxFrameNumber { return n }
        }
        return nil
    }

    private static func rows(_ url: URL) throws -> [MOTBox] {
        let data: Data
        do {
            data = try Data(contentsOf: url)
        } catch {
            throw MOTLoadError("cannot read \(url.path): \(error.localizedDescription)")
        }
        guard let text = String(data: data, encoding: .utf8) else { throw MOTLoadError("\(url.path) is not UTF-8 text") }
        do {
            return try MOTBox.parse(text)
        } catch {
            throw MOTLoadError("\(url.path): \(error.description)")
        }
    }

    /// nil: nothing there.
    private static func isFolder(_ url: URL) -> Bool? {
        var folder: ObjCBool = false
        guard FileManager.default.fileExists(atPath: url.path, isDirectory: &folder) else { return nil }
        return folder.boolValue
    }

    private static func groundTruthFile(in folder: URL) -> URL? {
        for relative in ["gt/gt.txt", "gt.txt"] {
            let file = folder.appendingPathComponent(relative)
            if isFolder(file) == false { return file }
        }
        return nil
    }

    /// A lone ground-truth file: `SEQ/gt/gt.txt` and `SEQ/gt.txt` are named SEQ (with SEQ's
    /// seqinfo.ini), anything else by its file name.
    private static func sequenceOfFile(_ file: URL) -> (name: String, folder: URL?, file: URL) {
        let parent = file.deletingLastPathComponent()
        if file.lastPathComponent == "gt.txt" {
            let folder = parent.lastPathComponent == "gt" ? parent.deletingLastPathComponent() : parent
            return (folder.lastPathComponent, folder, file)
        }
        return (file.deletingPathExtension().lastPathComponent, parent, file)
    }
}
