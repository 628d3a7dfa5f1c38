import Foundation
import Testing
#if canImport(Glibc)
import Glibc
#endif

/// Issue #40's cases through the command: window files past their limit, a window that overflows
/// the network, a run whose only input is missing, a full disk under an ffmpeg overlay, a stop
/// signal meeting the end of input, pose lines of half a million poses, long lists of missing
/// paths and the Ray driver's input list. Memory is each run's peak (`/usr/bin/time`).
@Suite(.serialized) struct HostileInputRoundThreeTests {
    static let fast = ["--model", "mobilenet050", "--input-size", "129", "--threads", "2"]

    /// `posekit arguments` under `/usr/bin/time`: the result with its peak resident memory in MB.
    static func measured(_ arguments: [String], program: URL = CLI.executable, stdinFile: URL? = nil) throws -> (CLI.Result, Double) {
        var result = try CLI.runProcess(URL(fileURLWithPath: "/usr/bin/time"), ["-f", "peak-rss-kb %M", program.path] + arguments,
                                        stdinFile: stdinFile)
        var lines = result.stderr.split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
        if lines.last == "" { lines.removeLast() }
        let kilobytes = lines.last.flatMap { $0.hasPrefix("peak-rss-kb ") ? Double($0.dropFirst(12)) : nil } ?? .infinity
        lines.removeLast()
        lines.removeAll { $0.hasPrefix("Command exited with non-zero status") }
        result.stderr = lines.map { $0 + "\n" }.joined()
        return (result, kilobytes / 1024)
    }

    // MARK: --window

    /// A real window is about 14 KB; a 9 MB one is refused before it is read (a 43 MB one took
    /// 569 MB and 10-25 s), and a 7 MB one of the wrong shape at its first row: about 63 MB at the
    /// peak, the command's own (these two took 122 and 152 MB, and 20 s each, in 0.9.0).
    @Test func windowFilesAreBoundedAndRefusedEarly() throws {
        let dir = try CLI.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let row19 = "[" + Array(repeating: "0.123456", count: 19).joined(separator: ", ") + "]"
        let frame = "[\(row19), \(row19), \(row19)]"
        let wrongShape = dir.appendingPathComponent("wrong.json")
        try Data(("[" + Array(repeating: frame, count: 12_000).joined(separator: ",\n") + "]").utf8).write(to: wrongShape)
        let large = dir.appendingPathComponent("large.json")
        try Data(("[" + Array(repeating: frame, count: 16_000).joined(separator: ",\n") + "]").utf8).write(to: large)
        for (window, words, limitMB) in [(wrongShape, "row 0 has more than 18 values", 90.0), (large, "more than the 8388608", 90.0)] {
            let (result, peakMB) = try Self.measured(["actions", "--classifier", CreateMLCommandTests.exercise.path, "--window", window.path])
            CreateMLCommandTests.expectOneLineError(result, mentioning: [window.lastPathComponent, words], window.lastPathComponent)
            #expect(peakMB < limitMB, "\(window.lastPathComponent): peak \(peakMB) MB")
        }
    }

    /// Finite values near float32's largest overflow inside the network: one error line, not a
    /// label with every probability null and exit 0.
    @Test func aWindowThatOverflowsTheNetworkIsAnError() throws {
        let dir = try CLI.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let row = "[" + Array(repeating: "3e38", count: 18).joined(separator: ", ") + "]"
        let window = try CLI.textFile("overflow.json", "[" + Array(repeating: "[\(row), \(row), \(row)]", count: 64).joined(separator: ", ") + "]", in: dir)
        let result = try CLI.run(["actions", "--classifier", CreateMLCommandTests.exercise.path, "--window", window])
        CreateMLCommandTests.expectOneLineError(result, mentioning: ["not finite"], "3e38 window")
    }

    // MARK: outputs

    /// A run whose only input is missing leaves existing --json and --overlay files as they were
    /// (they were replaced by empty files).
    @Test func aMissingInputLeavesExistingOutputsAlone() throws {
        let dir = try CLI.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let json = dir.appendingPathComponent("poses.jsonl"), overlay = dir.appendingPathComponent("overlay.y4m")
        try Data("{\"earlier\": true}\n".utf8).write(to: json)
        try Data("earlier overlay".utf8).write(to: overlay)
        let result = try CLI.run(["pose"] + Self.fast + ["--json", json.path, "--overlay", overlay.path, dir.appendingPathComponent("missing.y4m").path])
        #expect(result.status == 1 && result.stderr.contains("missing.y4m: open: No such file or directory"), "\(result.stderr)")
        #expect(try String(contentsOf: json, encoding: .utf8) == "{\"earlier\": true}\n")
        #expect(try String(contentsOf: overlay, encoding: .utf8) == "earlier overlay")
    }

    /// ffmpeg encoding an overlay onto a full disk: its write errors fail the run (Matroska exited
    /// 0 with a cut file), the old overlay stays and no temporary file is left. A 300 KB tmpfs
    /// is the full disk (mounting needs root).
    @Test(.enabled(if: getuid() == 0, "mounting a small tmpfs needs root"), arguments: ["mkv", "mp4"])
    func aFullDiskUnderAnFFmpegOverlayFailsTheRun(_ container: String) throws {
        let dir = try CLI.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let disk = try CLI.smallDisk(in: dir)
        defer { umount(disk.path) }
        // Noise does not compress: 25 frames of it need far more than the disk holds.
        let clip = dir.appendingPathComponent("noise.y4m")
        try CLI.ffmpeg(["-f", "lavfi", "-i", "testsrc=size=320x240:rate=25", "-vf", "noise=alls=100:allf=t", "-t", "1",
                        "-pix_fmt", "yuv420p", "-f", "yuv4mpegpipe", "-y", clip.path])
        let overlay = disk.appendingPathComponent("overlay.\(container)")
        try Data("earlier overlay".utf8).write(to: overlay)
        let result = try CLI.run(["pose"] + Self.fast + ["--overlay", overlay.path, "--json", "/dev/null", clip.path])
        #expect(result.status == 1, "status \(result.status): \(result.stderr)")
        #expect(result.stderr.contains("No space left on device") && result.stderr.contains("overlay.\(container)"), "\(result.stderr)")
        #expect(try String(contentsOf: overlay, encoding: .utf8) == "earlier overlay")
        #expect(try FileManager.default.contentsOfDirectory(atPath: disk.path) == ["overlay.\(container)"])
    }

    // MARK: signals

    /// SIGTERM sent after the last frame's line and before the end of input: the signal decides
    /// the status every time. Before, the stop signals blocked by the parent (Foundation's Process
    /// hands its children such a mask) were handled on a thread that ran only after the exit had
    /// been decided: exit 0 and no stop line in about half the runs.
    @Test func aSignalBeforeTheEndOfInputAlwaysDecides() throws {
        for run in 0..<4 {
            let child = try LiveProcess(["pose"] + Self.fast + ["-"])
            child.send(SyntheticY4M.stream(frames: 3))
            #expect(child.waitForLines(3), "stderr: \(child.stderr)")
            #expect(child.waitUntilIdle())   // idle, waiting for the next frame
            child.signal(SIGTERM)
            child.closeInput()
            #expect(child.finish() == 143, "run \(run): stderr: \(child.stderr)")
            #expect(child.stderr.contains("posekit: stopped by SIGTERM"), "run \(run): stderr: \(child.stderr)")
        }
    }

    // MARK: pose lines, input lists

    /// Half a million poses in one 16 MB line (under the 16 MiB line cap) are refused before the
    /// line is decoded: it took 0.6-1.6 GB.
    @Test func aLineOfHalfAMillionPosesIsRefusedInLittleMemory() throws {
        let dir = try CLI.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let poses = dir.appendingPathComponent("huge.jsonl")
        let line = "{\"frame\": 0, \"time\": 0, \"poses\": [" + String(repeating: "{\"score\": 0.5, \"keypoints\": []}, ", count: 499_999)
            + "{\"score\": 0.5, \"keypoints\": []}]}\n"
        try Data(line.utf8).write(to: poses)
        let (result, peakMB) = try Self.measured(["actions", "--poses", poses.path])
        #expect(result.status == 1 && result.stderr.contains("the frame has 500000 poses, more than the 1000 accepted"), "\(result.stderr)")
        #expect(peakMB < 150, "peak \(peakMB) MB")
    }

    /// Each missing path of a list cost a frame pipeline's workers (7-14 ms and tens of MB each,
    /// 350 MB at the peak): now it is found missing first.
    @Test func missingPathsInAListAreCheap() throws {
        let dir = try CLI.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let list = try CLI.textFile("list.txt", (0..<60).map { dir.appendingPathComponent("missing-\($0).y4m").path + "\n" }.joined(), in: dir)
        let (result, peakMB) = try Self.measured(["pose", "--model", "mobilenet050", "--threads", "2", "--inputs-from", list])
        #expect(result.status == 1)
        #expect(result.stderr.split(separator: "\n").filter { $0.contains("No such file or directory") }.count == 60, "\(result.stderr)")
        #expect(peakMB < 150, "peak \(peakMB) MB")
    }

    /// deploy/ray/posekit_ray.py: `--help` without Ray installed is the usage, not a traceback;
    /// `--inputs-from` is read in bounded chunks with posekit's limits (/dev/urandom grew to 3.8 GB).
    @Test(.enabled(if: FileManager.default.isExecutableFile(atPath: "/usr/bin/python3")))
    func theRayDriverReadsItsListWithinLimits() throws {
        let driver = CLI.repositoryRoot.appendingPathComponent("deploy/ray/posekit_ray.py").path
        let python = URL(fileURLWithPath: "/usr/bin/python3")
        let help = try CLI.runProcess(python, [driver, "--help"])
        #expect(help.status == 0 && help.stdoutText.contains("usage: posekit-ray") && !help.stderr.contains("Traceback"), "\(help.stderr)")
        let dir = try CLI.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let random = dir.appendingPathComponent("random.bin")
        var bytes = [UInt8](repeating: 0x61, count: 3 << 20)
        bytes[2 << 20] = 0   // a NUL byte 2 MiB in
        for i in stride(from: 100, to: bytes.count, by: 100) where bytes[i] != 0 { bytes[i] = 0x0A }
        try Data(bytes).write(to: random)
        let long = dir.appendingPathComponent("long.txt")
        try Data(String(repeating: "x", count: 5000).utf8).write(to: long)
        for (list, words) in [("/dev/urandom", "not a regular file"), (random.path, "line 20972 holds a NUL byte"), (long.path, "longer than 4096 bytes")] {
            let result = try CLI.runProcess(URL(fileURLWithPath: "/usr/bin/timeout"), ["600", python.path, driver, "--inputs-from", list,
                                                                                       "--output-dir", dir.appendingPathComponent("out").path, "--shards", "1"])
            #expect(result.status == 1 && result.stderr.contains(words) && !result.stderr.contains("Traceback"), "\(list): \(result.status) \(result.stderr)")
        }
    }
}
