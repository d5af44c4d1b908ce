import Foundation
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// A failed write: the run ends with exit 1 and this one line, or — for a reader that closed its
/// end of the pipe (`objdetect … | head -1`) — quietly, as `cat` or `grep` end.
enum OutputError: Error, CustomStringConvertible {
    /// The reader of standard output (or of a FIFO) went away: `EPIPE`.
    case closedPipe
    /// `write(2)` failed (or wrote nothing): `target` is what was being written ("to standard
    /// output", "results to out.json").
    case writeFailed(target: String, code: Int32)
    /// `open(2)` failed for a path the user named.
    case openFailed(target: String, code: Int32)

    var description: String {
        switch self {
        case .closedPipe: return "the reader of the output closed it"
        case let .writeFailed(target, code): return "cannot write \(target): \(errorText(code))"
        case let .openFailed(target, code): return "cannot open \(target) for writing: \(errorText(code))"
        }
    }

    /// The exit status for a closed pipe: 141 (128 + SIGPIPE), what a shell reports for `cat` or
    /// `grep` stopped by the same reader, so `set -o pipefail` scripts see the same thing.
    static let closedPipeExitStatus: Int32 = 141
}

/// The C library's text for an `errno` value ("No space left on device").
func errorText(_ code: Int32) -> String {
    guard let text = strerror(code) else { return "error \(code)" }
    return String(cString: text)
}

/// Where the command line tool writes bytes: standard output, standard error, or a file opened
/// exactly as the user named it — `open(2)` with `O_WRONLY|O_CREAT|O_TRUNC`, following symlinks,
/// keeping an existing file's mode and owner, and working on FIFOs, character devices,
/// `/dev/stdout` and process substitutions (nothing is written to a temporary file and renamed
/// over the target). Every `write(2)` is checked: short writes are continued, `EINTR` retried,
/// `EPIPE` becomes `OutputError.closedPipe` and any other failure `OutputError.writeFailed`.
/// Writes are serialized (live mode delivers results on another thread).
final class OutputChannel: @unchecked Sendable {
    /// The object of "cannot write …": "to standard output", "results to out.json".
    let target: String
    private let descriptor: Int32
    private let ownsDescriptor: Bool
    private let lock = NSLock()
    private var closed = false

    private init(descriptor: Int32, target: String, ownsDescriptor: Bool) {
        self.descriptor = descriptor
        self.target = target
        self.ownsDescriptor = ownsDescriptor
    }

    static let standardOutput = OutputChannel(descriptor: STDOUT_FILENO, target: "to standard output", ownsDescriptor: false)
    static let standardError = OutputChannel(descriptor: STDERR_FILENO, target: "to standard error", ownsDescriptor: false)

    /// Opens `path` for writing (created with mode 0666 less the umask if missing, truncated if a
    /// regular file). `what` names the contents for messages: "results", "the annotated picture".
    /// Opening a FIFO waits for its reader, as any Unix tool does.
    static func create(path: String, what: String) throws(OutputError) -> OutputChannel {
        let target = "\(what) to \(path)"
        var fd: Int32
        repeat {
            fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0o666)
        } while fd < 0 && errno == EINTR
        guard fd >= 0 else { throw .openFailed(target: target, code: errno) }
        return OutputChannel(descriptor: fd, target: target, ownsDescriptor: true)
    }

    /// The write end of a pipe to a child process (its standard input); `close()` ends its input.
    /// The descriptor is duplicated close-on-exec, so no later child inherits it and keeps the
    /// pipe open, and `handle` is closed.
    static func pipe(_ handle: FileHandle, target: String) -> OutputChannel {
        let descriptor = fcntl(handle.fileDescriptor, F_DUPFD_CLOEXEC, 3)
        try? handle.close()
        return OutputChannel(descriptor: descriptor, target: target, ownsDescriptor: true)
    }

    /// Writes all of `bytes` to the file at `path` (opened as `create` opens it) and closes it.
    static func writeFile(_ bytes: [UInt8], to path: String, what: String) throws {
        let file = try create(path: path, what: what)
        try file.write(bytes)
        try file.close()
    }

    /// Whether standard output is this channel (progress lines on a shared terminal are cleared first).
    var isStandardOutput: Bool { descriptor == STDOUT_FILENO && !ownsDescriptor }

    /// The `write`s below throw only `OutputError`.
    func write(_ text: String) throws {
        var text = text
        try text.withUTF8 { bytes in try write(UnsafeRawBufferPointer(bytes)) }
    }

    func write(_ bytes: [UInt8]) throws {
        try bytes.withUnsafeBytes { raw in try write(raw) }
    }

    func write(_ data: Data) throws {
        try data.withUnsafeBytes { raw in try write(raw) }
    }

    /// Writes every byte of `bytes`, or throws.
    func write(_ bytes: UnsafeRawBufferPointer) throws(OutputError) {
        lock.lock()
        defer { lock.unlock() }
        guard let base = bytes.baseAddress, bytes.count > 0 else { return }
        guard !closed, descriptor >= 0 else { throw .writeFailed(target: target, code: EBADF) }
        var offset = 0
        while offset < bytes.count {
            let n = systemWrite(descriptor, base + offset, bytes.count - offset)
            if n > 0 {
                offset += n
                continue
            }
            let code = n == 0 ? EIO : errno
            if n < 0 && code == EINTR { continue }
            if code == EPIPE { throw .closedPipe }
            throw .writeFailed(target: target, code: code)
        }
    }

    /// Closes a file this channel opened (its `close(2)` is checked too: some file systems
    /// report a failed write only there). Standard output and error stay open.
    func close() throws(OutputError) {
        lock.lock()
        defer { lock.unlock() }
        guard ownsDescriptor, !closed, descriptor >= 0 else { return }
        closed = true
        if systemClose(descriptor) != 0 && errno != EINTR {
            throw .writeFailed(target: target, code: errno)
        }
    }

    deinit {
        if ownsDescriptor && !closed && descriptor >= 0 { _ = systemClose(descriptor) }
    }
}

private func systemWrite(_ fd: Int32, _ buffer: UnsafeRawPointer, _ count: Int) -> Int {
    #if canImport(Glibc)
    return Glibc.write(fd, buffer, count)
    #else
    return Darwin.write(fd, buffer, count)
    #endif
}

private func systemClose(_ fd: Int32) -> Int32 {
    #if canImport(Glibc)
    return Glibc.close(fd)
    #else
    return Darwin.close(fd)
    #endif
}

/// Writes one line to standard output.
func writeLine(_ line: String) throws {
    try OutputChannel.standardOutput.write(line + "\n")
}

/// Writes one line to standard error. Best effort: with standard error itself gone there is
/// nowhere left to report to, and the results on standard output must not be lost for it.
func printError(_ message: String) {
    try? OutputChannel.standardError.write(message + "\n")
}
