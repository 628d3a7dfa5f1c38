import Foundation
import Testing
#if canImport(Glibc)
import Glibc
#endif

/// Every write is checked (`> /dev/full` fails every command with one line), and outputs never
/// lose what was there: device nodes and FIFOs are written in place, symlinks through to their
/// targets, and a failed write leaves an existing file as it was.
@Suite(.serialized) struct WriteSafetyTests {
    static let images = CLI.shared.appendingPathComponent("media/images")
    static let image = images.appendingPathComponent("coco_000000000785.ppm").path
    static let tensorflowWeights = CLI.shared.appendingPathComponent("weights/posenet-mobilenet050-tf/model-mobilenet_v1_050.pb").path
    static let fast = ["--input-size", "257", "--threads", "1"]

    /// Runs posekit with stdout sent to `stdoutPath` (a device, a file) and stderr collected.
    func run(_ arguments: [String], stdoutPath: String, environment: [String: String] = [:]) throws -> (status: Int32, stderr: [Substring]) {
        let process = Process()
        process.executableURL = CLI.executable
        process.arguments = arguments
        process.currentDirectoryURL = CLI.repositoryRoot
        process.environment = ProcessInfo.processInfo.environment.merging(environment) { $1 }
        process.standardOutput = FileHandle(forWritingAtPath: stdoutPath)
        process.standardInput = FileHandle.nullDevice
        let errors = Pipe()
        process.standardError = errors
        try process.run()
        let data = errors.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        return (process.terminationStatus, String(decoding: data, as: UTF8.self).split(separator: "\n"))
    }

    /// A pose file of one image, whose "source" names it as the ground truth does.
    func posesOfOneImage(in dir: URL) throws -> String {
        let result = try CLI.run(["pose"] + Self.fast + [Self.image])
        try #require(result.status == 0, "stderr: \(result.stderr)")
        let path = dir.appendingPathComponent("poses.jsonl").path
        try result.stdout.write(to: URL(fileURLWithPath: path))
        return path
    }

    @Test func everyCommandFailsOnAFullDevice() throws {
        let dir = try CLI.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let poses = try posesOfOneImage(in: dir)
        let groundTruth = Self.images.appendingPathComponent("ground_truth.json").path
        let commands: [[String]] = [
            ["--help"], ["pose", "--help"], ["help", "actions"], ["train-actions", "--help"],
            ["info"], ["info", "--json"],
            ["pose"] + Self.fast + [Self.image],
            ["pose"] + Self.fast + ["--json", "/dev/full", Self.image],
            ["pose"] + Self.fast + ["--overlay", "/dev/full", "--json", "/dev/null", Self.image],
            ["actions", "--poses", poses],
            ["eval", "--ground-truth", groundTruth, "--poses", poses],
            ["import", Self.tensorflowWeights, "-o", dir.appendingPathComponent("imported.pkw").path],
            ["import", Self.tensorflowWeights, "-o", "/dev/full"],
            ["bench", "model", "--models", "mobilenet050", "--sizes", "33", "--threads", "1", "--runs", "1"],
            ["bench", "pipeline", "--sizes", "33", "--frames", "10", "--threads", "1"],
            ["bench", "kernels", "--threads", "1", "--runs", "1", "--skip-naive"],
        ]
        for arguments in commands {
            let result = try run(arguments, stdoutPath: "/dev/full")
            #expect(result.status == 1, "\(arguments.joined(separator: " ")) > /dev/full exited \(result.status)")
            #expect(result.stderr.count == 1 && result.stderr.first?.hasPrefix("posekit: error: ") == true,
                    "\(arguments.joined(separator: " ")): \(result.stderr)")
        }
        var info = stat()
        #expect(stat("/dev/full", &info) == 0 && (info.st_mode & S_IFMT) == S_IFCHR, "/dev/full must stay a device")
    }

    @Test func deviceNodesAndFIFOsAreWrittenInPlace() throws {
        let dir = try CLI.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        for arguments in [["import", Self.tensorflowWeights, "-o", "/dev/null"], ["pose"] + Self.fast + ["--json", "/dev/null", Self.image]] {
            let result = try CLI.run(arguments)
            #expect(result.status == 0, "stderr: \(result.stderr)")
        }
        var info = stat()
        #expect(stat("/dev/null", &info) == 0 && (info.st_mode & S_IFMT) == S_IFCHR, "/dev/null must stay a device")
        #expect(try FileManager.default.contentsOfDirectory(atPath: "/dev").allSatisfy { !$0.hasPrefix(".null.") })

        let fifo = dir.appendingPathComponent("poses.fifo").path
        try #require(mkfifo(fifo, 0o644) == 0)
        nonisolated(unsafe) var received = Data()
        let reader = Thread { received = FileHandle(forReadingAtPath: fifo)?.readDataToEndOfFile() ?? Data() }
        reader.start()
        let result = try CLI.run(["pose"] + Self.fast + ["--json", fifo, Self.image])
        #expect(result.status == 0, "stderr: \(result.stderr)")
        while !reader.isFinished { Thread.sleep(forTimeInterval: 0.01) }
        #expect(String(decoding: received, as: UTF8.self).split(separator: "\n").count == 1)
        #expect(lstat(fifo, &info) == 0 && (info.st_mode & S_IFMT) == S_IFIFO, "the FIFO must stay a FIFO")
    }

    @Test func symlinksAreWrittenThroughToTheirTargets() throws {
        let dir = try CLI.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let target = dir.appendingPathComponent("real.jsonl")
        try Data("old\n".utf8).write(to: target)
        let link = dir.appendingPathComponent("link.jsonl").path
        try FileManager.default.createSymbolicLink(atPath: link, withDestinationPath: "real.jsonl")
        let dangling = dir.appendingPathComponent("dangling.pkw").path
        try FileManager.default.createSymbolicLink(atPath: dangling, withDestinationPath: "made.pkw")

        let pose = try CLI.run(["pose"] + Self.fast + ["--json", link, Self.image])
        #expect(pose.status == 0, "stderr: \(pose.stderr)")
        let imported = try CLI.run(["import", Self.tensorflowWeights, "-o", dangling])
        #expect(imported.status == 0, "stderr: \(imported.stderr)")

        #expect(try FileManager.default.destinationOfSymbolicLink(atPath: link) == "real.jsonl", "the link must stay a link")
        let written = try String(contentsOf: target, encoding: .utf8)
        #expect(written.hasPrefix("{\"source\"") && written.split(separator: "\n").count == 1)
        #expect(try FileManager.default.destinationOfSymbolicLink(atPath: dangling) == "made.pkw")
        #expect(FileManager.default.fileExists(atPath: dir.appendingPathComponent("made.pkw").path))
        let leftovers = try FileManager.default.contentsOfDirectory(atPath: dir.path).filter { $0.hasSuffix(".tmp") }
        #expect(leftovers.isEmpty)
    }

    /// A file-size limit (`ulimit -f`) makes the write fail halfway: one line naming the output,
    /// exit 1, and the existing file byte for byte as it was, with no temporary file left.
    @Test func aFailedWriteKeepsTheExistingFile() throws {
        let dir = try CLI.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let existing = dir.appendingPathComponent("existing.pkw")
        let old = Data((0..<1000).map { UInt8(truncatingIfNeeded: $0 * 7) })
        try old.write(to: existing)
        let script = "ulimit -f 16; exec \"$0\" import \"$1\" -o \"$2\""
        let result = try CLI.runProcess(URL(fileURLWithPath: "/bin/sh"),
                                        ["-c", script, CLI.executable.path, Self.tensorflowWeights, existing.path])
        #expect(result.status == 1)
        let lines = result.stderr.split(separator: "\n")
        #expect(lines.count == 1 && lines[0].contains("existing.pkw") && lines[0].contains("File too large"), "stderr: \(result.stderr)")
        #expect(try Data(contentsOf: existing) == old)
        #expect(try FileManager.default.contentsOfDirectory(atPath: dir.path) == ["existing.pkw"])
    }

    /// Two of input, `--json`, `--overlay` and `--output-dir` files that are one file (by name,
    /// symlink or hard link) are refused with exit 2 before anything is read or written.
    @Test func outputsThatAreTheSameFileAsAnotherAreRefused() throws {
        let dir = try CLI.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let clip = dir.appendingPathComponent("self.y4m")
        let video = SyntheticY4M.stream(frames: 2)
        try video.write(to: clip)
        let same = dir.appendingPathComponent("same.out").path
        let alias = dir.appendingPathComponent("alias.y4m").path
        try FileManager.default.createSymbolicLink(atPath: alias, withDestinationPath: "self.y4m")
        let hardLink = dir.appendingPathComponent("hard.y4m").path
        try #require(link(clip.path, hardLink) == 0)
        let cases: [[String]] = [
            ["pose", "--json", same, "--overlay", same, clip.path],
            ["pose", "--json", clip.path, clip.path],
            ["pose", "--json", dir.path + "/./self.y4m", clip.path],
            ["pose", "--overlay", alias, "--json", same, clip.path],
            ["pose", "--json", hardLink, clip.path],
            ["pose", "--overlay", "/dev/stdout", clip.path],
            ["actions", "--json", clip.path, clip.path],
            ["actions", "--poses", same, "--json", same],
        ]
        try Data("{}\n".utf8).write(to: URL(fileURLWithPath: same))
        for arguments in cases {
            let result = try CLI.run(arguments + (arguments.first == "pose" ? Self.fast : []))
            #expect(result.status == 2, "\(arguments): \(result.status), stderr: \(result.stderr)")
            #expect(result.stderr.contains("are the same file"), "\(arguments): \(result.stderr)")
            #expect(result.stdout.isEmpty)
        }
        #expect(try Data(contentsOf: clip) == video, "the input video must be untouched")
        #expect(try String(contentsOf: URL(fileURLWithPath: same), encoding: .utf8) == "{}\n")
        // Sharing a device is fine.
        let shared = try CLI.run(["pose"] + Self.fast + ["--json", "/dev/null", "--overlay", "/dev/null", clip.path])
        #expect(shared.status == 0, "stderr: \(shared.stderr)")
    }

    /// `/dev/stdout` (whose link ends in `pipe:[N]` on a pipe) is written as standard output.
    @Test func standardStreamNamesAreWrittenAsThoseStreams() throws {
        let dir = try CLI.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let json = try CLI.run(["pose"] + Self.fast + ["--json", "/dev/stdout", Self.image])
        #expect(json.status == 0 && json.lines.count == 1 && json.lines[0].hasPrefix("{\"source\""), "stderr: \(json.stderr)")
        let clip = dir.appendingPathComponent("clip.y4m")
        try SyntheticY4M.stream(frames: 2).write(to: clip)
        let posesFile = dir.appendingPathComponent("poses.jsonl").path
        let overlay = try CLI.run(["pose"] + Self.fast + ["--overlay", "/dev/stdout", "--json", posesFile, clip.path])
        #expect(overlay.status == 0, "stderr: \(overlay.stderr)")
        #expect(overlay.stdout.starts(with: Data("YUV4MPEG2 ".utf8)))
        #expect(try String(contentsOfFile: posesFile, encoding: .utf8).split(separator: "\n").count == 2)
        #expect(try FileManager.default.contentsOfDirectory(atPath: dir.path).sorted() == ["clip.y4m", "poses.jsonl"])
    }

    /// A run killed while writing leaves `.NAME.XXXXXX.tmp`; the next run writing NAME removes
    /// those no process holds that are over a minute old, and keeps a fresh one and a locked one.
    @Test func staleTemporariesOfAKilledRunAreRemoved() throws {
        let dir = try CLI.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        func temporary(_ suffix: String, age: Int) throws -> String {
            let path = dir.appendingPathComponent(".out.jsonl.\(suffix).tmp").path
            try Data("partial".utf8).write(to: URL(fileURLWithPath: path))
            var times = [timespec(tv_sec: time(nil) - age, tv_nsec: 0), timespec(tv_sec: time(nil) - age, tv_nsec: 0)]
            try #require(utimensat(AT_FDCWD, path, &times, 0) == 0)
            return path
        }
        let stale = try temporary("k3x9a1", age: 3600)
        let fresh = try temporary("f00001", age: 0)
        let held = try temporary("h00001", age: 3600)
        let holder = open(held, O_RDONLY)
        defer { close(holder) }
        try #require(flock(holder, LOCK_EX) == 0, "a running writer holds its lock")
        let other = dir.appendingPathComponent(".other.jsonl.k3x9a1.tmp").path
        try Data().write(to: URL(fileURLWithPath: other))
        var times = [timespec(tv_sec: time(nil) - 3600, tv_nsec: 0), timespec(tv_sec: time(nil) - 3600, tv_nsec: 0)]
        try #require(utimensat(AT_FDCWD, other, &times, 0) == 0)

        let result = try CLI.run(["pose"] + Self.fast + ["--json", dir.appendingPathComponent("out.jsonl").path, Self.image])
        #expect(result.status == 0, "stderr: \(result.stderr)")
        #expect(!FileManager.default.fileExists(atPath: stale), "a stale temporary must be removed")
        #expect(FileManager.default.fileExists(atPath: fresh), "a fresh one may belong to a run that just started")
        #expect(FileManager.default.fileExists(atPath: held), "a locked one belongs to a running writer")
        #expect(FileManager.default.fileExists(atPath: other), "another output's temporaries are not ours to remove")
    }
}
