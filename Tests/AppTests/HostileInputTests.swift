import Foundation
import Testing
#if canImport(Glibc)
import Glibc
#endif

/// Inputs a hostile user (or a planted file) chooses: names ffmpeg would read as protocols or
/// patterns, FIFOs where files are expected, endless lists, absurd times and pose counts.
/// Each case ends in a bounded time and memory with one line of error, or reads exactly the file
/// named.
@Suite(.serialized) struct HostileInputTests {
    static let images = CLI.shared.appendingPathComponent("media/images")
    static let image = images.appendingPathComponent("coco_000000000785.ppm").path
    static let fast = ["--input-size", "129", "--threads", "1"]

    /// Writes `text` to `name` in `dir`; returns its path.
    func write(_ text: String, to name: String, in dir: URL) throws -> String {
        let url = dir.appendingPathComponent(name)
        try Data(text.utf8).write(to: url)
        return url.path
    }

    /// Runs posekit and waits for its exit: nil when it had to be killed (a hang: the hang guard).
    func runBounded(_ arguments: [String]) throws -> (status: Int32?, stderr: String) {
        let child = try LiveProcess(arguments)
        child.closeInput()
        let status = child.finish()
        return (status, child.stderr)
    }

    // MARK: The crash: times no double can step through

    @Test func frameTimesAndNumbersBeyondRangeAreRefusedInOneLine() throws {
        let dir = try CLI.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let first = #"{"source": "x", "frame": 0, "width": 10, "height": 10, "time": 0, "poses": []}"#
        for (time, mention) in [("1e300", "later than the 1e9 s"), ("1e18", "later than the 1e9 s"), ("1e400", "1e400 is out of range")] {
            let poses = try write(first + "\n" + #"{"source": "x", "frame": 1, "width": 10, "height": 10, "time": \#(time), "poses": []}"# + "\n",
                                  to: "t.jsonl", in: dir)
            let (status, stderr) = try runBounded(["actions", "--poses", poses])
            #expect(status == 1, "time \(time): status \(String(describing: status)), stderr: \(stderr)")
            #expect(stderr.contains("line 2") && stderr.contains(mention), "time \(time): \(stderr)")
            #expect(stderr.split(separator: "\n").count == 1, "\(stderr)")
        }
        // Still accepted: a stream that starts late (1e8 s) and has a long gap.
        let late = try write(#"{"frame": 0, "time": 1e8, "poses": []}"# + "\n" + #"{"frame": 1, "time": 2e8, "poses": []}"# + "\n",
                             to: "late.jsonl", in: dir)
        let (status, stderr) = try runBounded(["actions", "--poses", late])
        #expect(status == 0, "stderr: \(stderr)")
    }

    /// 1001 poses in a frame is past the decoder's own limit (`--max-poses` 1...1000): refused
    /// before any pose is built, where tracking would cost the square of the count.
    @Test func morePosesInAFrameThanTheDecoderFindsAreRefused() throws {
        let dir = try CLI.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let crowd = Array(repeating: "{}", count: 1001).joined(separator: ", ")
        let poses = try write(#"{"frame": 0, "time": 0, "poses": [\#(crowd)]}"# + "\n", to: "crowd.jsonl", in: dir)
        let (status, stderr) = try runBounded(["actions", "--poses", poses])
        #expect(status == 1 && stderr.contains("1001 poses") && stderr.contains("1000"), "stderr: \(stderr)")
    }

    // MARK: Names are files, never ffmpeg protocols or patterns

    /// Each planted name is read as exactly that file: `frame%03d.jpg` is not the sequence
    /// frame000.jpg..., `pipe:1.jpg` not ffmpeg's own stdout, `concat:x.mp4` not x.mp4,
    /// `file:y.png` not y.png. Each file has its own size, so a line's width tells which file was
    /// read; given by name in the working directory and found by a directory scan alike.
    @Test func inputNamesAreNeverFFmpegProtocolsOrPatterns() throws {
        let dir = try CLI.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        // ffmpeg reads output names as protocols too: make each file under a plain name, then rename it.
        func make(_ name: String, width: Int, video: Bool = false) throws {
            let plain = dir.appendingPathComponent("plain" + (video ? ".mp4" : ".jpg"))
            let source = video ? "testsrc=s=\(width)x\(width * 3 / 4):d=0.2" : "color=gray:s=\(width)x\(width * 3 / 4)"
            _ = try CLI.ffmpeg(["-f", "lavfi", "-i", source] + (video ? [] : ["-frames:v", "1"]) + ["-y", plain.path])
            try FileManager.default.moveItem(at: plain, to: dir.appendingPathComponent(name))
        }
        let planted: [(name: String, width: Int)] = [("frame%03d.jpg", 64), ("pipe:1.jpg", 72), ("concat:x.mp4", 96), ("file:y.jpg", 56)]
        for (name, width) in planted { try make(name, width: width, video: name.hasSuffix(".mp4")) }
        let decoys: [(name: String, width: Int)] = [("frame000.jpg", 80), ("frame001.jpg", 80), ("x.mp4", 112), ("y.jpg", 120)]
        for (name, width) in decoys { try make(name, width: width, video: name.hasSuffix(".mp4")) }
        let widths = Dictionary(uniqueKeysWithValues: (planted + decoys).map { ($0.name, $0.width) })

        func check(_ result: CLI.Result, expecting names: [String], prefix: String) throws {
            #expect(result.status == 0, "stderr: \(result.stderr)")
            var seen: Set<String> = []
            for line in result.lines {
                let object = try #require(try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any])
                let source = try #require(object["source"] as? String)
                let name = String(source.dropFirst(prefix.count))
                #expect(object["width"] as? Int == widths[name], "\(source) was read as another file: \(line)")
                seen.insert(name)
            }
            #expect(seen == Set(names), "read \(seen.sorted()), expected \(names.sorted())")
        }
        for (name, _) in planted {
            try check(try CLI.run(["pose"] + Self.fast + [name], directory: dir), expecting: [name], prefix: "")
        }
        try check(try CLI.run(["pose"] + Self.fast + ["."], directory: dir), expecting: (planted + decoys).map(\.name), prefix: "./")
    }

    /// A name that is not UTF-8 (`$'\xff\xfe.ppm'`) is opened by its own bytes, given as an
    /// argument, found by a directory scan or listed in `--inputs-from`. Before, the argument
    /// became U+FFFD U+FFFD and opened a decoy of that (valid) name, and the scan dropped the file.
    @Test func namesThatAreNotUTF8AreOpenedByTheirOwnBytes() throws {
        let dir = try CLI.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        _ = try CLI.ffmpeg(["-f", "lavfi", "-i", "color=gray:s=40x30", "-frames:v", "1", "-y", dir.appendingPathComponent("decoy.ppm").path])
        try FileManager.default.moveItem(at: dir.appendingPathComponent("decoy.ppm"), to: dir.appendingPathComponent("\u{FFFD}\u{FFFD}.ppm"))
        let script = """
            cd "$1" && cp "$2" "$(printf '\\377\\376.ppm')" || exit 99
            "$0" pose --input-size 129 --threads 1 "$(printf '\\377\\376.ppm')" && "$0" pose --input-size 129 --threads 1 . || exit
            printf '\\377\\376.ppm\\n' | "$0" pose --input-size 129 --threads 1 --inputs-from -
            """
        let result = try CLI.runProcess(URL(fileURLWithPath: "/bin/sh"), ["-c", script, CLI.executable.path, dir.path, Self.image])
        #expect(result.status == 0, "stderr: \(result.stderr)")
        let widths = try result.lines.map { line in
            try #require(try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any])["width"] as? Int
        }
        // The named file (the 640-wide COCO image), then the scan: the decoy (EF BF BD... sorts
        // first) and the file, then the list's entry.
        #expect(widths == [640, 40, 640, 640], "\(result.stdoutText)")
    }

    // MARK: FIFOs never hang

    /// A FIFO where a regular file belongs (weights, ground truth, a model given to `pose`) is
    /// refused at once, and a directory scan skips one named like a video.
    @Test func aFIFOWhereAFileBelongsIsRefusedAtOnce() throws {
        let dir = try CLI.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        func fifo(_ name: String) throws -> String {
            let path = dir.appendingPathComponent(name).path
            try #require(mkfifo(path, 0o600) == 0)
            return path
        }
        let weights = try fifo("fifo.pkw")
        let truth = try fifo("truth.json")
        let cases: [[String]] = [
            ["info", weights],
            ["pose", "--model", weights, Self.image],
            ["actions", "--weights", weights, "--poses", "-"],
            ["pose", "--format", "coco", "--ground-truth", truth, Self.image],
            ["eval", "--ground-truth", truth, Self.image],
        ]
        for arguments in cases {
            let (status, stderr) = try runBounded(arguments)
            #expect(status == 1, "\(arguments): status \(String(describing: status)) (nil: it hung), stderr: \(stderr)")
            #expect(stderr.contains("not a regular file"), "\(arguments): \(stderr)")
        }
        let media = dir.appendingPathComponent("media")
        try FileManager.default.createDirectory(at: media, withIntermediateDirectories: true)
        try #require(mkfifo(media.appendingPathComponent("x.y4m").path, 0o600) == 0)
        try FileManager.default.copyItem(atPath: Self.image, toPath: media.appendingPathComponent("a.ppm").path)
        let child = try LiveProcess(["pose"] + Self.fast + [media.path])
        #expect(child.finish() == 0, "the scan must skip the FIFO; stderr: \(child.stderr)")
        #expect(child.lines.count == 1 && child.lines.first?.line.contains("a.ppm") == true)
    }

    /// A FIFO given as the input is a live stream: posekit waits for its writer, and a stop
    /// signal ends that wait (the open no longer blocks, and the wait is a cancellable poll).
    @Test func aSignalEndsTheWaitForAFIFOWriter() throws {
        let dir = try CLI.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let path = dir.appendingPathComponent("live.y4m").path
        try #require(mkfifo(path, 0o600) == 0)
        let waiting = try LiveProcess(["pose"] + Self.fast + [path])
        #expect(waiting.waitUntilOpen(path), "stderr: \(waiting.stderr)")   // waiting for the writer
        waiting.signal(SIGTERM)
        #expect(waiting.finish() == 143, "stderr: \(waiting.stderr)")
        #expect(waiting.stderr.contains("stopped by SIGTERM"), "stderr: \(waiting.stderr)")

        // A writer that comes later is still read in full.
        let reader = try LiveProcess(["pose"] + Self.fast + [path])
        #expect(reader.waitUntilOpen(path), "stderr: \(reader.stderr)")   // the writer comes after the reader opened
        let writer = try #require(FileHandle(forWritingAtPath: path))
        try writer.write(contentsOf: SyntheticY4M.stream(frames: 3))
        try writer.close()
        #expect(reader.finish() == 0, "stderr: \(reader.stderr)")
        #expect(reader.lines.count == 3)
    }

    // MARK: Bounded lists

    @Test func inputListsAreBoundedAndRefuseNULBytes() throws {
        let dir = try CLI.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let nul = try CLI.run(["pose", "--inputs-from", "-"], stdin: Data("a.ppm\0b.ppm\n".utf8))
        #expect(nul.status == 1 && nul.stderr.contains("NUL"), "stderr: \(nul.stderr)")
        let long = try CLI.run(["pose", "--inputs-from", "-"], stdin: Data((String(repeating: "a", count: 5000) + "\n").utf8))
        #expect(long.status == 1 && long.stderr.contains("longer than 4096 bytes"), "stderr: \(long.stderr)")
        // As `yes x.ppm | posekit pose --inputs-from -` (the list is read whole before the error).
        let endless = try CLI.run(["pose", "--inputs-from", "-"], stdin: Data(String(repeating: "x.ppm\n", count: 1_000_001).utf8))
        #expect(endless.status == 1 && endless.stderr.contains("more than 1000000 inputs"), "stderr: \(endless.stderr)")
        let (status, stderr) = try runBounded(["pose", "--inputs-from", "/dev/urandom"])
        #expect(status == 1, "status \(String(describing: status)) (nil: it ran on), stderr: \(stderr)")
        // A list written on Windows: CRLF line ends.
        let list = try write(Self.image + "\r\n" + Self.image + "\r\n", to: "list.txt", in: dir)
        let crlf = try CLI.run(["pose"] + Self.fast + ["--inputs-from", list])
        #expect(crlf.status == 0 && crlf.lines.count == 2, "stderr: \(crlf.stderr)")
    }

    // MARK: Descriptors, training data

    /// `posekit pose - <&-`: with descriptor 0 closed, the first pipe posekit made used to take
    /// it, and reading "standard input" waited on that pipe forever. Now `-` is empty.
    @Test func aClosedStandardInputReadsAsEmpty() throws {
        let result = try CLI.runProcess(URL(fileURLWithPath: "/bin/sh"),
                                        ["-c", "exec timeout 600 \"$0\" pose --input-size 129 --threads 1 - <&-", CLI.executable.path])
        #expect(result.status == 1, "124 means it hung; stderr: \(result.stderr)")
        #expect(result.stderr.split(separator: "\n").count == 1, "stderr: \(result.stderr)")
    }

    @Test func trainingRefusesLabelsItCannotUse() throws {
        let dir = try CLI.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let missing = try CLI.run(["train-actions", "--labels", dir.appendingPathComponent("MISSING").path, "--epochs", "1", "--sequences", "1",
                                   "-o", dir.appendingPathComponent("a.pkw").path])
        #expect(missing.status == 2 && missing.stderr.contains("MISSING"), "stderr: \(missing.stderr)")
        let labels = try write(#"[{"file": "clip.y4m", "label": "squats"}]"#, to: "labels.json", in: dir)
        let noPoses = try CLI.run(["train-actions", "--labels", labels, "--poses-dir", dir.path, "--epochs", "1", "--sequences", "1",
                                   "-o", dir.appendingPathComponent("a.pkw").path])
        #expect(noPoses.status == 1 && noPoses.stderr.contains("no clip has a poses file"), "stderr: \(noPoses.stderr)")
        #expect(!FileManager.default.fileExists(atPath: dir.appendingPathComponent("a.pkw").path))
    }
}
