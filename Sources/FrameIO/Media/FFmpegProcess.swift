import Foundation
import PoseCore
#if canImport(Glibc)
import Glibc
#endif

/// One `ffmpeg` child process with one pipe to it: its standard output (decoding: ffmpeg writes
/// PPM or Y4M that PoseKit reads) or its standard input (encoding: PoseKit writes Y4M or PPM that
/// ffmpeg turns into MP4, PNG, ...). The media decoder and encoder (``FFmpegDecoder``,
/// ``FFmpegEncoder``) are built on it.
///
/// The child runs in its own process group with default signal dispositions (a terminal's Ctrl-C
/// reaches only the parent, which stops it); the other standard stream is /dev/null and its
/// standard error goes to an unlinked temporary file, whose most informative line becomes the
/// error message. Every path out reaps it: ``finish()`` at the normal end, ``stop()`` after an
/// early end, and `deinit` as the last resort, so no zombie or orphan is left behind.
final class FFmpegProcess {
    /// Which end of the pipe the parent holds.
    enum Direction { case readingOutput, writingInput }

    /// The parent's end of the pipe: ffmpeg's standard output or standard input.
    let pipeDescriptor: Int32
    private let processID: pid_t
    private let errorLog: UnsafeMutablePointer<FILE>
    private var reaped = false
    /// Names as they appear in ffmpeg's messages (`file:/abs/path`) → as the user gave them.
    private let displayNames: [(ffmpeg: String, user: String)]

    /// Signals the child gets back at their default action, whatever the parent does with them.
    static let defaultSignals: [Int32] = [SIGPIPE, SIGXFSZ, SIGINT, SIGTERM, SIGHUP]

    /// Starts ffmpeg with `arguments`; `missing` is the error when ffmpeg is not on `PATH`.
    /// `displayNames` rewrites paths in ffmpeg's messages to the names the user gave. When
    /// reading its output, `standardInput` (a descriptor of ours) becomes ffmpeg's standard input
    /// instead of /dev/null: media handed over from a stream (``FFmpegStreamInput``).
    init(arguments: [String], direction: Direction, missing: @autoclosure () -> FrameIOError,
         displayNames: [(ffmpeg: String, user: String)] = [], standardInput: Int32? = nil) throws {
        guard let program = FFmpeg.executable() else { throw missing() }
        guard let log = tmpfile() else { throw FrameIOError.system(operation: "create a temporary file for ffmpeg's messages", errno: errno) }
        var ends: [Int32] = [0, 0]
        guard pipe(&ends) == 0 else {
            fclose(log)
            throw FrameIOError.system(operation: "create a pipe for ffmpeg", errno: errno)
        }
        let (parentEnd, childEnd) = direction == .readingOutput ? (ends[0], ends[1]) : (ends[1], ends[0])
        defer { close(childEnd) }   // the child holds its own copy
        for descriptor in ends + [fileno(log)] { _ = fcntl(descriptor, F_SETFD, FD_CLOEXEC) }   // only this child gets them, as 0/1 and 2

        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        if direction == .readingOutput {
            if let standardInput {
                posix_spawn_file_actions_adddup2(&actions, standardInput, 0)
            } else {
                posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0)
            }
            posix_spawn_file_actions_adddup2(&actions, childEnd, 1)
        } else {
            posix_spawn_file_actions_adddup2(&actions, childEnd, 0)
            posix_spawn_file_actions_addopen(&actions, 1, "/dev/null", O_WRONLY, 0)
        }
        posix_spawn_file_actions_adddup2(&actions, fileno(log), 2)
        FFmpeg.closeInheritedDescriptors(&actions)

        var attributes = posix_spawnattr_t()
        posix_spawnattr_init(&attributes)
        defer { posix_spawnattr_destroy(&attributes) }
        var noSignals = sigset_t()
        sigemptyset(&noSignals)
        var defaults = sigset_t()
        sigemptyset(&defaults)
        for signalNumber in Self.defaultSignals { sigaddset(&defaults, signalNumber) }
        posix_spawnattr_setsigmask(&attributes, &noSignals)
        posix_spawnattr_setsigdefault(&attributes, &defaults)
        posix_spawnattr_setpgroup(&attributes, 0)
        posix_spawnattr_setflags(&attributes, Int16(POSIX_SPAWN_SETSIGMASK | POSIX_SPAWN_SETSIGDEF | POSIX_SPAWN_SETPGROUP))

        let argv = ([program] + arguments).map { FileName.withPath($0) { strdup($0) } } + [nil]
        defer { for argument in argv { free(argument) } }
        var child: pid_t = 0
        let status = posix_spawn(&child, program, &actions, &attributes, argv, environ)
        guard status == 0 else {
            close(parentEnd)
            fclose(log)
            throw FrameIOError.system(operation: "start \(program)", errno: status)
        }
        processID = child
        FFmpegChildren.add(child)
        errorLog = log
        pipeDescriptor = parentEnd
        self.displayNames = displayNames
    }

    deinit {
        stop()
        fclose(errorLog)
    }

    /// At the normal end: waits for ffmpeg to exit (up to `graceSeconds`); throws
    /// ``FrameIOError/ffmpegFailed(_:)`` with its most informative stderr line when it failed.
    ///
    /// With `writeErrorsFail`, an exit status of 0 is not enough: ffmpeg 5 exits 0 from some
    /// muxers (Matroska) after "No space left on device" on its output, so any error line about
    /// writing its output fails it too.
    func finish(graceSeconds: Double = 10, writeErrorsFail: Bool = false) throws {
        guard !reaped else { return }
        let status = reap(graceSeconds: graceSeconds)
        if let failure = failure(status: status) { throw failure }
        if writeErrorsFail, status != nil, let line = errorLines().first(where: FFmpeg.reportsAWriteError) {
            throw FrameIOError.ffmpegFailed(line)
        }
    }

    /// After an input or output error: ffmpeg's own failure explains it better (a file ffmpeg
    /// cannot read gives an empty or cut stream), so that error, if any, replaces `error`.
    func explain(_ error: Error) -> Error {
        guard !reaped else { return error }
        let status = reap(graceSeconds: 1)
        return failure(status: status) ?? error
    }

    /// Ends ffmpeg now (an early stop) and reaps it; idempotent.
    func stop() {
        guard !reaped else { return }
        _ = reap(graceSeconds: 0)
    }

    /// Waits up to `graceSeconds` for ffmpeg to exit by itself, then sends SIGTERM, then after
    /// a quarter second SIGKILL (ffmpeg blocked on a full pipe does not act on SIGTERM);
    /// returns the `waitpid` status (nil if it was ended by us).
    private func reap(graceSeconds: Double) -> Int32? {
        reaped = true
        var status: Int32 = 0
        if waitUntilExit(seconds: graceSeconds, status: &status) { return status }
        FFmpegChildren.signal(processID, SIGTERM)
        if waitUntilExit(seconds: 0.25, status: &status) { return nil }
        FFmpegChildren.signal(processID, SIGKILL)
        _ = FFmpegChildren.wait(processID, &status, options: 0)
        return nil
    }

    /// Polls `waitpid` for up to `seconds` (at least once); true once the child has been reaped.
    private func waitUntilExit(seconds: Double, status: inout Int32) -> Bool {
        var waited = 0.0
        while true {
            if FFmpegChildren.wait(processID, &status, options: WNOHANG) { return true }
            if waited >= seconds { return false }
            usleep(10_000)
            waited += 0.01
        }
    }

    /// The error for a failed exit status, or nil for success (or a child we ended).
    private func failure(status: Int32?) -> FrameIOError? {
        guard let status else { return nil }
        let exitedNormally = status & 0x7F == 0
        if exitedNormally && (status >> 8) & 0xFF == 0 { return nil }
        let description = exitedNormally ? "exit status \((status >> 8) & 0xFF)" : "killed by signal \(status & 0x7F)"
        return .ffmpegFailed(informativeErrorLine() ?? description)
    }

    /// The line of ffmpeg's standard error (its last 16 KiB) that best says what went wrong.
    private func informativeErrorLine() -> String? {
        FFmpeg.mostInformative(errorLines(), naming: displayNames.first?.user ?? "")
    }

    /// ffmpeg's standard error (its last 16 KiB) as printable lines, paths as the user named them.
    private func errorLines() -> [String] {
        let descriptor = fileno(errorLog)
        let size = lseek(descriptor, 0, SEEK_END)
        guard size > 0 else { return [] }
        let start = max(0, size - 16384)
        var bytes = [UInt8](repeating: 0, count: Int(size - start))
        let count = pread(descriptor, &bytes, bytes.count, start)
        guard count > 0 else { return [] }
        let text = String(decoding: bytes[..<count], as: UTF8.self)
        return text.split(whereSeparator: { $0 == "\n" || $0 == "\r" })
            .map { line in displayNames.reduce(PrintableText.make(String(line))) { $0.replacingOccurrences(of: $1.ffmpeg, with: $1.user) } }
            .map { FFmpeg.withoutAddresses($0.trimmingCharacters(in: .whitespaces)) }
            .filter { !$0.isEmpty }
    }
}

/// Facts about the `ffmpeg` program PoseKit runs: where it is, how paths are handed to it, which
/// of its error lines says what went wrong.
enum FFmpeg {
    /// The `ffmpeg` executable on `PATH`, or nil.
    static func executable(searchPath: String? = getenv("PATH").map { String(cString: $0) }) -> String? {
        for directory in (searchPath ?? "").split(separator: ":") where !directory.isEmpty {
            let candidate = String(directory) + "/ffmpeg"
            var info = stat()
            if stat(candidate, &info) == 0, (info.st_mode & S_IFMT) == S_IFREG, access(candidate, X_OK) == 0 {
                return candidate
            }
        }
        return nil
    }

    /// Adds to `actions` the closing of every descriptor from 3 up, after the standard streams are
    /// set: ffmpeg keeps only those. A descriptor the host program opened without close-on-exec
    /// (its sockets, a pipe to another child) would otherwise stay open in ffmpeg for as long as
    /// it runs, and the process at that descriptor's other end would see no end of file, or no
    /// closed reader, until ffmpeg ended.
    static func closeInheritedDescriptors(_ actions: inout posix_spawn_file_actions_t) {
        // glibc 2.34 and later (not in the Glibc module's headers, so looked up by name).
        typealias CloseFrom = @convention(c) (UnsafeMutablePointer<posix_spawn_file_actions_t>, Int32) -> Int32
        if let symbol = dlsym(nil, "posix_spawn_file_actions_addclosefrom_np"),
           unsafeBitCast(symbol, to: CloseFrom.self)(&actions, 3) == 0 {
            return
        }
        // Older ones: the descriptors open now (a close glibc finds already done is ignored).
        let open = (try? FileManager.default.contentsOfDirectory(atPath: "/proc/self/fd")) ?? []
        for descriptor in open.compactMap({ Int32($0) }) where descriptor > 2 {
            posix_spawn_file_actions_addclose(&actions, descriptor)
        }
    }

    /// `path` made absolute against the working directory (unchanged when it already is).
    static func absolutePath(_ path: String) -> String {
        if path.hasPrefix("/") { return path }
        guard let directory = getcwd(nil, 0) else { return "./" + path }
        defer { free(directory) }
        let base = FileName.decode(cString: directory)
        return (base.hasSuffix("/") ? base : base + "/") + path
    }

    /// Arguments every run starts with: no reading of the terminal, errors only, and only local
    /// files and pipes (a container pointing to a URL, an HLS playlist or a `concat` list is refused).
    static let commonArguments = ["-nostdin", "-loglevel", "error", "-protocol_whitelist", "file,pipe"]

    /// `line` with ffmpeg's context prefixes (`[mjpeg @ 0x55bbeb2c2640] `: the component and its
    /// address in memory) written as the component alone (`mjpeg: `). The address changes on every
    /// run and means nothing to a user; without it one input gives one message.
    static func withoutAddresses(_ line: String) -> String {
        var rest = Substring(line)
        var components: [Substring] = []
        while rest.hasPrefix("["), let close = rest.firstIndex(of: "]"),
              let at = rest[..<close].range(of: " @ 0x"),
              rest[at.upperBound..<close].allSatisfy(\.isHexDigit) {
            components.append(rest[rest.index(after: rest.startIndex)..<at.lowerBound])
            rest = rest[rest.index(after: close)...].drop { $0 == " " }
        }
        return components.isEmpty ? line : (components + [rest]).joined(separator: ": ")
    }

    /// ffmpeg often ends with a consequence ("Error marking filters as finished", "Conversion
    /// failed!") after the cause. The cause is the first line that says what is wrong with the
    /// input, the most telling kind first ("Invalid data found when processing input", "No such
    /// file", "No video stream found", then a demuxer's "moov atom not found", ...), else the
    /// first line naming the input, else the last line.
    /// Whether an ffmpeg error line says its output was not written whole: a failed write of a
    /// packet, the trailer or the close (`No space left on device`, `File too large`, `I/O error`).
    static func reportsAWriteError(_ line: String) -> Bool {
        ["Error writing trailer", "Error closing file", "av_interleaved_write_frame()", "No space left on device",
         "File too large", "Disk quota exceeded", "Input/output error"].contains(where: line.contains)
    }

    static func mostInformative(_ lines: [String], naming input: String) -> String? {
        let causes: [(String) -> Bool] = [
            { $0.contains("Invalid") },
            { $0.contains("No such") },
            { line in line.range(of: "No ").map { line[$0.upperBound...].contains("found") } ?? false },
            { $0.contains("Permission denied") },
            { line in ["not found", "nsupported", "corrupt", "Could not"].contains(where: line.contains) },
        ]
        for statesTheCause in causes {
            if let line = lines.first(where: statesTheCause) { return line }
        }
        return lines.first(where: { !input.isEmpty && $0.contains(input) }) ?? lines.last
    }
}
