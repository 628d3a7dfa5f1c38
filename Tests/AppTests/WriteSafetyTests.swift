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
}
