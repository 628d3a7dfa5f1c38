import Foundation
import Testing

/// One exit convention (ranges refused with exit 2 before any output, limits shown by --help),
/// plain one-line messages naming the file, memory that grows only with data read, and pose
/// frames put in time order.
@Suite(.serialized) struct ExitsAndMessagesTests {
    static let images = CLI.shared.appendingPathComponent("media/images")
    static let image = images.appendingPathComponent("coco_000000000785.ppm").path
    static let groundTruth = images.appendingPathComponent("ground_truth.json").path
    static let clip = CLI.shared.appendingPathComponent("media/videos/yuyoujiang_test_video__squat.mp4")

    @Test func outOfRangeOptionsExit2BeforeAnyOutput() throws {
        let cases: [([String], String)] = [
            (["actions", "--stride", "0", "-"], "1...60"),
            (["actions", "--stride", "61", "-"], "1...60"),
            (["actions", "--fps", "0", "-"], "--fps"),
            (["bench", "pipeline", "--sizes", "0"], "33...2049"),
            (["bench", "model", "--output-stride", "7"], "8, 16"),
            // What the table refuses is what would fail later: no bundle has a stride-32 backbone,
            // and the decoder refines at most 16 steps.
            (["pose", "--output-stride", "32", Self.image], "8, 16"),
            (["pose", "--refine-steps", "17", Self.image], "0...16"),
            (["bench", "kernels", "--runs", "0"], "--runs"),
            (["pose", "--input-size", "7", Self.image], "33...2049"),
            (["pose", "--threads", "0", Self.image], "1...256"),
            (["pose", "--nms-radius", "nan", Self.image], "--nms-radius"),
            (["pose", "--shard", "2/2", Self.image], "--shard"),
            (["eval", "--ground-truth", Self.groundTruth, "--oks-area-scale", "0", Self.image], "--oks-area-scale"),
            (["train-actions", "--epochs", "0"], "1...1000"),
        ]
        for (arguments, mention) in cases {
            let result = try CLI.run(arguments)
            #expect(result.status == 2, "\(arguments): \(result.status) \(result.stderr)")
            #expect(result.stdout.isEmpty, "\(arguments) wrote output before refusing")
            #expect(result.stderr.contains(mention), "\(arguments): \(result.stderr)")
        }
    }

    @Test func helpShowsTheLimits() throws {
        // --help leaves the rarely set options out; --help-hidden (and docs/cli.md) has them all.
        let pose = try CLI.run(["pose", "--help"]).stdoutText
        for limit in ["33...2049", "1...256", "1...1000"] { #expect(pose.contains(limit), "pose --help lacks \(limit)") }
        let all = try CLI.run(["pose", "--help-hidden"]).stdoutText
        for limit in ["0.0...1.0", "0...16", "0.001...3600.0"] { #expect(all.contains(limit), "pose --help-hidden lacks \(limit)") }
        #expect(try CLI.run(["actions", "--help"]).stdoutText.contains("1...60"))
        #expect(try CLI.run(["bench", "model", "--help"]).stdoutText.contains("8, 16)"))
    }

    @Test func messagesArePlainAndNameTheFile() throws {
        let dir = try CLI.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let broken = dir.appendingPathComponent("broken.json")
        try Data("{not json".utf8).write(to: broken)
        let wrongType = dir.appendingPathComponent("wrong-type.json")
        try Data("{\"images\": 3, \"annotations\": [], \"categories\": []}".utf8).write(to: wrongType)
        let garbage = dir.appendingPathComponent("garbage.pkw")
        try Data(repeating: 7, count: 100).write(to: garbage)
        let cases: [([String], String)] = [
            (["eval", "--ground-truth", broken.path, Self.image], "broken.json"),
            (["eval", "--ground-truth", wrongType.path, Self.image], "wrong-type.json"),
            (["eval", "--ground-truth", dir.appendingPathComponent("missing.json").path, Self.image], "missing.json"),
            (["info", garbage.path], "garbage.pkw"),
            (["info", dir.appendingPathComponent("none.pkw").path], "none.pkw"),
            (["import", dir.appendingPathComponent("none.pb").path, "-o", dir.appendingPathComponent("x.pkw").path], "none.pb"),
            (["pose", "--inputs-from", dir.appendingPathComponent("list.txt").path], "list.txt"),
            (["actions", "--poses", dir.appendingPathComponent("poses.jsonl").path], "poses.jsonl"),
        ]
        for (arguments, file) in cases {
            let result = try CLI.run(arguments)
            let lines = result.stderr.split(separator: "\n")
            #expect(result.status == 1, "\(arguments): \(result.status)")
            #expect(lines.count == 1 && lines[0].hasPrefix("posekit: error: ") && lines[0].contains(file), "\(arguments): \(result.stderr)")
            for debugText in ["Error Domain", "NSCocoaErrorDomain", "DecodingError", "codingPath", "Context(", "UserInfo"] {
                #expect(!result.stderr.contains(debugText), "\(arguments): \(result.stderr)")
            }
        }
    }

    /// Standard input is recognized from its first bytes as a path is (`cat photo.jpg | posekit
    /// pose -`): a JPEG, a PNG, an MP4 whose index comes first (streamed to ffmpeg as it
    /// arrives) and one whose index comes last (copied first: ffmpeg must seek) give the lines the
    /// same file gives by path, but for `source`; so does a file redirected to standard input.
    @Test func standardInputIsRecognizedAsAPathIs() throws {
        let dir = try CLI.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let jpeg = Self.images.appendingPathComponent("coco_000000000785.jpg")
        let png = dir.appendingPathComponent("photo.png")
        try CLI.ffmpeg(["-i", jpeg.path, png.path])
        let streaming = dir.appendingPathComponent("streaming.mp4"), indexLast = dir.appendingPathComponent("index-last.mp4")
        for (output, flags) in [(streaming, ["-movflags", "+faststart"]), (indexLast, [])] {
            try CLI.ffmpeg(["-ss", "1", "-i", Self.clip.path, "-frames:v", "3", "-an", "-vf", "scale=160:-2", "-c:v", "mpeg4"] + flags + [output.path])
        }
        func withoutSource(_ result: CLI.Result) -> [String] {
            result.lines.map { $0.replacingOccurrences(of: #"^\{"source": "[^"]*", "#, with: "{", options: .regularExpression) }
        }
        let fast = ["--input-size", "257", "--threads", "1"]
        for input in [jpeg, png, streaming, indexLast] {
            let byPath = try CLI.run(["pose"] + fast + [input.path])
            let piped = try CLI.run(["pose"] + fast + ["-"], stdin: try Data(contentsOf: input))
            let redirected = try CLI.run(["pose"] + fast + ["-"], stdinFile: input)
            #expect(byPath.status == 0 && !byPath.lines.isEmpty, "\(input.lastPathComponent): \(byPath.stderr)")
            #expect(piped.status == 0 && withoutSource(piped) == withoutSource(byPath), "\(input.lastPathComponent) piped: \(piped.stderr)")
            #expect(redirected.status == 0 && withoutSource(redirected) == withoutSource(byPath), "\(input.lastPathComponent) redirected: \(redirected.stderr)")
            #expect(piped.lines.first?.hasPrefix(#"{"source": "-""#) == true)
        }
        // `actions` reads standard input the same way.
        let actions = try CLI.run(["actions"] + fast + ["-"], stdin: try Data(contentsOf: streaming))
        #expect(actions.status == 0 && actions.lines.last?.contains(#""frames": 3"#) == true, "\(actions.stderr)")
    }

    /// Something that is no image or video, by path or on standard input: one line naming the
    /// formats posekit reads and what the input starts with, with no escapes in it.
    @Test func unknownInputsNameTheFormatsRead() throws {
        let dir = try CLI.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let text = try CLI.textFile("notes.txt", "hello\nworld\n", in: dir)
        let binary = dir.appendingPathComponent("blob.bin")
        try Data([0x7F, 0x45, 0x4C, 0x46, 0x02, 0x01, 0x01, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x03]).write(to: binary)
        let cases: [([String], Data?, String)] = [
            (["pose", text], nil, "notes.txt: not an image or video PoseKit reads (it starts with the text \"hello world\")"),
            (["pose", "-"], Data("hello\n".utf8), "not an image or video PoseKit reads (it starts with the text \"hello\")"),
            (["actions", binary.path], nil, "blob.bin: not an image or video PoseKit reads (it starts with the bytes 7f 45 4c 46 02 01 01 00 00 00 00 00"),
        ]
        for (arguments, stdin, expected) in cases {
            let result = try CLI.run(arguments, stdin: stdin)
            let lines = result.stderr.split(separator: "\n")
            #expect(result.status == 1 && lines.count == 1 && lines[0].hasPrefix("posekit: error: "), "\(arguments): \(result.stderr)")
            #expect(lines.first?.contains(expected) == true, "\(arguments): \(result.stderr)")
            #expect(lines.first?.contains("JPEG, PNG, BMP, GIF, WebP, TIFF, MP4/MOV, MKV/WebM, AVI and MPEG through ffmpeg") == true, "\(result.stderr)")
            #expect(!result.stderr.contains("\\"), "no escapes: \(result.stderr)")
        }
    }

    /// Peak RSS of posekit reading a 23-byte PGM (and a Y4M header) that claims 16384x16384,
    /// against a 2x2 image: the lie may cost a few MB, not the 805 MB it claims (bound 16 MB: a
    /// clean-clone run measured 8.7 MB above the 2x2 image's peak, over the 8 MB bound it had). Measured as the
    /// child's ru_maxrss by a fresh python3 parent whose only child is posekit.
    @Test func lyingHeadersCostOnlyWhatArrives() throws {
        let dir = try CLI.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        func file(_ name: String, _ text: String) throws -> String { try CLI.textFile(name, text, in: dir) }
        let small = try file("small.pgm", "P5 2 2 255\nabcd")
        let lyingPGM = try file("lie.pgm", "P5 16384 16384 255\nabcd")
        #expect(try Data(contentsOf: URL(fileURLWithPath: lyingPGM)).count == 23)
        let lyingY4M = try file("lie.y4m", "YUV4MPEG2 W16384 H16384 F30:1 C420jpeg\nFRAME\nabc")
        func peakKilobytes(_ input: String) throws -> (Int, Int32) {
            let script = """
                import resource, subprocess, sys
                status = subprocess.run(sys.argv[1:], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL).returncode
                print(resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss, status)
                """
            let result = try CLI.runProcess(URL(fileURLWithPath: "/usr/bin/env"),
                                            ["python3", "-c", script, CLI.executable.path, "pose", "--input-size", "257", "--threads", "1", input])
            let fields = result.stdoutText.split(whereSeparator: \.isWhitespace).compactMap { Int($0) }
            try #require(fields.count == 2, "python3: \(result.stderr)")
            return (fields[0], Int32(fields[1]))
        }
        let (baseline, okStatus) = try peakKilobytes(small)
        #expect(okStatus == 0)
        for lying in [lyingPGM, lyingY4M] {
            let (peak, status) = try peakKilobytes(lying)
            #expect(status == 1, "a truncated frame is an error")
            #expect(peak - baseline < 16 * 1024, "\(lying): peak RSS \(peak) KB against \(baseline) KB for a 2x2 image")
        }
    }

    /// `actions --poses`: a shuffled file gives exactly the unshuffled result; the same frames on
    /// a stream, a duplicate and a negative time are refused in one line naming the frame.
    @Test func poseFramesAreOrderedByTime() throws {
        let dir = try CLI.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let y4m = try CLI.ffmpeg(["-i", Self.clip.path, "-t", "3", "-vf", "scale=160:-2", "-f", "yuv4mpegpipe", "-"])
        let posed = try CLI.run(["pose", "--input-size", "257", "--threads", "1", "-"], stdin: y4m)
        try #require(posed.status == 0 && posed.lines.count == 90, "stderr: \(posed.stderr)")
        let lines = posed.lines
        func write(_ name: String, _ lines: [String]) throws -> String {
            let url = dir.appendingPathComponent(name)
            try Data((lines.joined(separator: "\n") + "\n").utf8).write(to: url)
            return url.path
        }
        let ordered = try write("ordered.jsonl", lines)
        let shuffledLines = lines.indices.map { lines[($0 * 7) % lines.count] }  // 7 and 90 are coprime: a permutation
        #expect(shuffledLines != lines)
        let shuffled = try write("shuffled.jsonl", shuffledLines)
        let reference = try CLI.run(["actions", "--poses", ordered])
        #expect(reference.status == 0 && reference.lines.last?.contains("\"summary\"") == true, "stderr: \(reference.stderr)")
        let sorted = try CLI.run(["actions", "--poses", shuffled])
        #expect(sorted.status == 0, "stderr: \(sorted.stderr)")
        #expect(sorted.stdout == reference.stdout)

        let stream = try CLI.run(["actions", "--poses", "-"], stdin: Data((shuffledLines.joined(separator: "\n") + "\n").utf8))
        #expect(stream.status == 1 && stream.stderr.split(separator: "\n").count == 1 && stream.stderr.contains("frame"), "\(stream.stderr)")

        let duplicate = try write("duplicate.jsonl", lines + [lines[40]])
        let twice = try CLI.run(["actions", "--poses", duplicate])
        #expect(twice.status == 1 && twice.stderr.contains("frame 40 appears twice"), "\(twice.stderr)")

        var negative = lines
        negative[3] = negative[3].replacingOccurrences(of: "\"time\": 0.1,", with: "\"time\": -0.1,")   // frame 3 at 30 fps: 0.1 s, no trailing zeros
        #expect(negative[3] != lines[3])
        let backwards = try CLI.run(["actions", "--poses", try write("negative.jsonl", negative)])
        #expect(backwards.status == 1 && backwards.stderr.contains("frame 3") && backwards.stderr.contains("negative"), "\(backwards.stderr)")
        for result in [twice, backwards] { #expect(result.stdout.isEmpty, "a file is checked whole before any output") }
    }
}
