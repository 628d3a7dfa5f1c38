import Foundation
import FrameIO
import PoseCore
#if canImport(Glibc)
import Glibc
#endif

/// Decodes a file or device PoseKit cannot read itself (JPEG, PNG, MP4, a webcam, ...) by running
/// `ffmpeg` as a child process, exactly as the README's pipe recipes do, and reading its output
/// (PPM for images, Y4M for video) through a pipe.
///
///     let decoder = try FFmpegDecoder(input: "clip.mp4", format: .mp4)
///     let reader = try FrameReader(source: decoder.output)
///     ... read the frames ...
///     try decoder.finish()        // reaps ffmpeg; throws its most informative stderr line if it failed
///
/// The child runs in its own process group with default signal dispositions, its standard input
/// is /dev/null and its standard error goes to an unlinked temporary file (its most informative line is the
/// error message). Every path out reaps it: `finish()` after the last frame, `stop()` after an
/// early end (a stop signal, our reader gone, a failed write), and `deinit` as the last resort,
/// so no zombie or orphan is left behind.
final class FFmpegDecoder {
    /// What ffmpeg is asked to produce.
    enum Media: Equatable {
        /// A still image: `-f image2pipe -c:v ppm -` (PPM frames).
        case image
        /// A video file: `-f yuv4mpegpipe -` (a Y4M stream).
        case video
        /// A V4L2 capture device such as /dev/video0: `-f v4l2 -i DEVICE -f yuv4mpegpipe -`.
        case device
    }

    /// ffmpeg's decoded output (PPM or Y4M).
    let output: ByteSource
    private let processID: pid_t
    private let errorLog: UnsafeMutablePointer<FILE>
    private var reaped = false
    /// The input as given, and the absolute path ffmpeg was handed (`file:PATH` in its messages).
    private let input: String
    private let inputPath: String

    /// The ffmpeg arguments for `input`: the README recipes plus `-nostdin`, with the input always
    /// read as the local file it names, whatever the name looks like to ffmpeg:
    ///
    /// - it is passed as a `file:` URL of its absolute path, so a name such as `concat:x.mp4`,
    ///   `pipe:1.jpg` or `http:...` is never taken for a protocol, and `-protocol_whitelist
    ///   file,pipe` refuses any other protocol a container might point to (an HLS playlist, a
    ///   `concat` list);
    /// - the demuxer is named (`-f`), never probed: probing takes `frame%03d.jpg` for the image2
    ///   demuxer's numbered sequence and would read `frame000.jpg`, `frame001.jpg`, ... instead.
    ///
    /// A V4L2 device is opened by the v4l2 demuxer itself, by its absolute path.
    static func arguments(input: String, format: MediaFormat) -> [String] {
        let head = ["-nostdin", "-loglevel", "error", "-protocol_whitelist", "file,pipe"]
        let path = absolutePath(input)
        switch format.media {
        case .image: return head + ["-f", format.demuxer, "-i", "file:" + path, "-f", "image2pipe", "-c:v", "ppm", "-"]
        case .video: return head + ["-f", format.demuxer, "-i", "file:" + path, "-f", "yuv4mpegpipe", "-"]
        case .device: return head + ["-f", format.demuxer, "-i", path, "-f", "yuv4mpegpipe", "-"]
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

    /// Starts `ffmpeg` on `input`; throws when ffmpeg is not on `PATH` (naming `format`, e.g.
    /// "a JPEG image", and how to install it) or cannot be started.
    init(input: String, format: MediaFormat) throws {
        guard let program = Self.executable() else {
            throw CLIError("\(format.name) needs ffmpeg to decode it, and ffmpeg is not on PATH; install it with apt-get install ffmpeg (or convert the input to PPM or Y4M)")
        }
        guard let log = tmpfile() else { throw CLIError("cannot create a temporary file for ffmpeg's messages: \(String(cString: strerror(errno)))") }
        var ends: [Int32] = [0, 0]
        guard pipe(&ends) == 0 else {
            fclose(log)
            throw CLIError("cannot create a pipe for ffmpeg: \(String(cString: strerror(errno)))")
        }
        defer { close(ends[1]) }   // the child holds its own copy
        for descriptor in ends + [fileno(log)] { _ = fcntl(descriptor, F_SETFD, FD_CLOEXEC) }   // only this child gets them, as 1 and 2

        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0)
        posix_spawn_file_actions_adddup2(&actions, ends[1], 1)
        posix_spawn_file_actions_adddup2(&actions, fileno(log), 2)

        // Its own process group (a terminal's Ctrl-C reaches only posekit, which stops it),
        // no blocked signals, and default actions for what posekit ignores or catches.
        var attributes = posix_spawnattr_t()
        posix_spawnattr_init(&attributes)
        defer { posix_spawnattr_destroy(&attributes) }
        var noSignals = sigset_t()
        sigemptyset(&noSignals)
        var defaults = sigset_t()
        sigemptyset(&defaults)
        for signalNumber in [SIGPIPE, SIGXFSZ] + SignalHandling.stopSignals { sigaddset(&defaults, signalNumber) }
        posix_spawnattr_setsigmask(&attributes, &noSignals)
        posix_spawnattr_setsigdefault(&attributes, &defaults)
        posix_spawnattr_setpgroup(&attributes, 0)
        posix_spawnattr_setflags(&attributes, Int16(POSIX_SPAWN_SETSIGMASK | POSIX_SPAWN_SETSIGDEF | POSIX_SPAWN_SETPGROUP))

        let argv = ([program] + Self.arguments(input: input, format: format)).map { FileName.withPath($0) { strdup($0) } } + [nil]
        defer { for argument in argv { free(argument) } }
        var child: pid_t = 0
        let status = posix_spawn(&child, program, &actions, &attributes, argv, environ)
        guard status == 0 else {
            close(ends[0])
            fclose(log)
            throw CLIError("cannot start \(program): \(String(cString: strerror(status)))")
        }
        processID = child
        errorLog = log
        self.input = input
        inputPath = Self.absolutePath(input)
        output = ByteSource(fileDescriptor: ends[0], closeOnDeinit: true)
    }

    deinit {
        stop()
        fclose(errorLog)
    }

    /// After the last frame: waits for ffmpeg to exit; throws `ffmpeg: <its most informative
    /// stderr line>` (`mostInformative`) when it failed.
    func finish() throws {
        guard !reaped else { return }
        let status = reap(graceSeconds: 10)
        if let failure = failure(status: status) { throw FFmpegFailure(message: failure) }
    }

    /// After an input error: ffmpeg's own failure explains it better (a file ffmpeg cannot read
    /// gives an empty or cut stream), so that error, if any, replaces `error`.
    func explain(_ error: Error) -> Error {
        guard !reaped else { return error }
        let status = reap(graceSeconds: 1)
        return failure(status: status).map { FFmpegFailure(message: $0) } ?? error
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
        kill(processID, SIGTERM)
        if waitUntilExit(seconds: 0.25, status: &status) { return nil }
        kill(processID, SIGKILL)
        while waitpid(processID, &status, 0) < 0 && errno == EINTR {}
        return nil
    }

    /// Polls `waitpid` for up to `seconds` (at least once); true once the child has been reaped.
    private func waitUntilExit(seconds: Double, status: inout Int32) -> Bool {
        var waited = 0.0
        while true {
            let result = waitpid(processID, &status, WNOHANG)
            if result == processID || (result < 0 && errno == ECHILD) { return true }
            if waited >= seconds { return false }
            usleep(10_000)
            waited += 0.01
        }
    }

    /// The message for a failed exit status, or nil for success (or a child we ended).
    private func failure(status: Int32?) -> String? {
        guard let status else { return nil }
        let exitedNormally = status & 0x7F == 0
        if exitedNormally && (status >> 8) & 0xFF == 0 { return nil }
        let description = exitedNormally ? "exit status \((status >> 8) & 0xFF)" : "killed by signal \(status & 0x7F)"
        return "ffmpeg: " + (informativeErrorLine() ?? description)
    }

    /// The line of ffmpeg's standard error (its last 16 KiB) that best says what went wrong.
    private func informativeErrorLine() -> String? {
        let descriptor = fileno(errorLog)
        let size = lseek(descriptor, 0, SEEK_END)
        guard size > 0 else { return nil }
        let start = max(0, size - 16384)
        var bytes = [UInt8](repeating: 0, count: Int(size - start))
        let count = pread(descriptor, &bytes, bytes.count, start)
        guard count > 0 else { return nil }
        let text = String(decoding: bytes[..<count], as: UTF8.self)
        let lines = text.split(whereSeparator: { $0 == "\n" || $0 == "\r" })
            .map { CLIError.printable(String($0)).replacingOccurrences(of: "file:" + inputPath, with: input) }
            .map { $0.trimmingCharacters(in: .whitespaces) }
            .filter { !$0.isEmpty }
        return Self.mostInformative(lines, naming: input)
    }

    /// ffmpeg often ends with a consequence ("Error marking filters as finished", "Conversion
    /// failed!") after the cause. The cause is the first line that says what is wrong with the
    /// input, the most telling kind first ("Invalid data found when processing input", "No such
    /// file", "No video stream found", then a demuxer's "moov atom not found", ...), else the
    /// first line naming the input, else the last line.
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
        return lines.first(where: { $0.contains(input) }) ?? lines.last
    }
}

/// ffmpeg exited with an error: `ffmpeg: <its most informative stderr line>` (which often names the input
/// too, yet is always reported after the input's name).
struct FFmpegFailure: Error, CustomStringConvertible {
    let message: String
    var description: String { message }
}
