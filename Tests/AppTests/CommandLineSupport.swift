import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// Runs the built `posekit` binary as a user would, for end-to-end tests.
enum CLI {
    /// The `posekit` executable next to the test bundle (same build configuration).
    static let executable: URL = {
        var dir = URL(fileURLWithPath: CommandLine.arguments[0]).deletingLastPathComponent()
        if dir.lastPathComponent.hasSuffix(".xctest") { dir = dir.deletingLastPathComponent() }
        for candidate in [dir, dir.deletingLastPathComponent()] {
            let url = candidate.appendingPathComponent("posekit")
            if FileManager.default.isExecutableFile(atPath: url.path) { return url }
        }
        return repositoryRoot.appendingPathComponent(".build/release/posekit")
    }()

    static let repositoryRoot = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()

    /// `$POSEKIT_SHARED`, else `<repo>/../shared`.
    static let shared: URL = {
        if let env = ProcessInfo.processInfo.environment["POSEKIT_SHARED"], !env.isEmpty { return URL(fileURLWithPath: env) }
        return repositoryRoot.deletingLastPathComponent().appendingPathComponent("shared").standardizedFileURL
    }()

    struct Result {
        var status: Int32
        var stdout: Data
        var stderr: String
        var stdoutText: String { String(decoding: stdout, as: UTF8.self) }
        var lines: [String] { stdoutText.split(separator: "\n").map(String.init) }
    }

    /// Runs `posekit arguments...` with `stdin` (bytes or a file) and collects its outputs; in
    /// `directory` when given (else the repository root).
    static func run(_ arguments: [String], stdin: Data? = nil, stdinFile: URL? = nil,
                    environment: [String: String] = [:], directory: URL? = nil) throws -> Result {
        try runProcess(executable, arguments, stdin: stdin, stdinFile: stdinFile, environment: environment, directory: directory)
    }

    static func runProcess(_ program: URL, _ arguments: [String], stdin: Data? = nil, stdinFile: URL? = nil,
                           environment: [String: String] = [:], directory: URL? = nil) throws -> Result {
        let process = Process()
        process.executableURL = program
        process.arguments = arguments
        process.currentDirectoryURL = directory ?? repositoryRoot
        var env = ProcessInfo.processInfo.environment
        for (k, v) in environment { env[k] = v }
        process.environment = env
        let out = Pipe(), err = Pipe()
        process.standardOutput = out
        process.standardError = err
        let input = Pipe()
        if let stdinFile {
            process.standardInput = try FileHandle(forReadingFrom: stdinFile)
        } else {
            process.standardInput = input
        }
        try process.run()
        // Drain both pipes concurrently so neither fills up and blocks the child.
        nonisolated(unsafe) var errData = Data()
        let errReader = Thread { errData = err.fileHandleForReading.readDataToEndOfFile() }
        errReader.start()
        if stdinFile == nil {
            let writer = input.fileHandleForWriting
            let payload = stdin ?? Data()
            Thread.detachNewThread {
                // posekit may stop reading early (a refused input): the write then fails with
                // EPIPE instead of SIGPIPE ending the whole test process.
                var pipeSignal = sigset_t()
                sigemptyset(&pipeSignal)
                sigaddset(&pipeSignal, SIGPIPE)
                pthread_sigmask(SIG_BLOCK, &pipeSignal, nil)
                try? writer.write(contentsOf: payload)
                try? writer.close()
            }
        }
        let outData = out.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        while errReader.isExecuting || !errReader.isFinished { Thread.sleep(forTimeInterval: 0.005) }
        return Result(status: process.terminationStatus, stdout: outData, stderr: String(decoding: errData, as: UTF8.self))
    }

    /// Runs ffmpeg (installed by `make setup`) and returns its stdout (unused when it writes a file).
    @discardableResult
    static func ffmpeg(_ arguments: [String]) throws -> Data {
        let result = try runProcess(URL(fileURLWithPath: "/usr/bin/env"), ["ffmpeg", "-nostdin", "-loglevel", "error"] + arguments)
        guard result.status == 0 else { throw CLIFailure("ffmpeg failed: \(result.stderr)") }
        return result.stdout
    }

    /// The five shared clips (labels.json), by name.
    static let sharedClipNames = ["jumping_jacks_01", "jumping_jacks_02", "lunges_02", "squats_01", "other_pushups_01"]

    /// A shared clip decoded as labels.json says (Y4M bytes), and its labels.json entry.
    static func sharedClip(_ name: String) throws -> (y4m: Data, entry: [String: Any]) {
        let labels = try JSONSerialization.jsonObject(with: Data(contentsOf: shared.appendingPathComponent("media/videos/labels.json"))) as! [[String: Any]]
        guard let clip = labels.first(where: { $0["file"] as? String == name + ".y4m" }) else { throw CLIFailure("no clip \(name) in labels.json") }
        let trim = clip["trim"] as! [String: Any]
        let video = shared.appendingPathComponent("media/videos/\(clip["original"] as! String)")
        let y4m = try ffmpeg(["-ss", "\(trim["start_s"]!)", "-i", video.path, "-t", "\(trim["duration_s"]!)", "-an",
                              "-vf", "scale='min(640,iw)':-2:flags=lanczos,format=yuv420p", "-f", "yuv4mpegpipe", "-"])
        return (y4m, clip)
    }

    /// A fresh directory for one test, which removes it when it ends (also on failure):
    ///
    ///     let dir = try CLI.temporaryDirectory()
    ///     defer { try? FileManager.default.removeItem(at: dir) }
    static func temporaryDirectory() throws -> URL {
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("posekit-cli-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
        return dir
    }

    /// A full disk for write-safety tests: a tmpfs of `kilobytes` mounted at `dir/disk` (mounting
    /// needs root); the caller unmounts it (`defer { umount(disk.path) }`).
    static func smallDisk(in dir: URL, kilobytes: Int = 300) throws -> URL {
        let disk = dir.appendingPathComponent("disk")
        try FileManager.default.createDirectory(at: disk, withIntermediateDirectories: true)
        let mounted = "size=\(kilobytes)k".withCString { mount("tmpfs", disk.path, "tmpfs", 0, $0) }
        guard mounted == 0 else { throw CLIFailure("mount: \(String(cString: strerror(errno)))") }
        return disk
    }

    /// Writes `text` to `dir/name` and returns the file's path.
    static func textFile(_ name: String, _ text: String, in dir: URL) throws -> String {
        let url = dir.appendingPathComponent(name)
        try Data(text.utf8).write(to: url)
        return url.path
    }
}

struct CLIFailure: Error, CustomStringConvertible {
    let description: String
    init(_ description: String) { self.description = description }
}
