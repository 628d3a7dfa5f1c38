import Foundation
import Testing
#if canImport(Glibc)
import Glibc
#endif

/// Inputs posekit does not read itself (JPEG, PNG, MP4, ...) decoded by ffmpeg as a child
/// process: output byte for byte equal to the README's pipe recipe (but for "source", which
/// names the input), ffmpeg's failures as one line, and the child always ended and reaped.
@Suite(.serialized) struct FFmpegInputTests {
    static let images = CLI.shared.appendingPathComponent("media/images")
    static let clip = CLI.shared.appendingPathComponent("media/videos/yuyoujiang_test_video__squat.mp4")
    static let fast = ["--input-size", "257", "--threads", "1"]

    /// `lines` with the "source" field of `input` written as the recipe's `-`.
    func sourceAsStdin(_ text: String, _ input: String) -> String {
        text.replacingOccurrences(of: "\"source\": \"\(input)\"", with: "\"source\": \"-\"")
    }

    /// A short MP4 (MPEG-4 part 2, 160 px wide) cut from the shared squat clip.
    func shortVideo(in dir: URL, seconds: String = "1", name: String = "clip.mp4") throws -> URL {
        let url = dir.appendingPathComponent(name)
        _ = try CLI.ffmpeg(["-i", Self.clip.path, "-t", seconds, "-an", "-vf", "scale=160:-2", "-c:v", "mpeg4", "-q:v", "3", url.path])
        return url
    }

    @Test(arguments: ["coco_000000000785.jpg", "mpii_052475643.jpg"])
    func imageEqualsTheRecipe(_ name: String) throws {
        let photo = Self.images.appendingPathComponent(name).path
        let direct = try CLI.run(["pose"] + Self.fast + [photo])
        #expect(direct.status == 0, "stderr: \(direct.stderr)")
        #expect(direct.stderr.isEmpty, "stderr: \(direct.stderr)")
        // The README recipe: ffmpeg -loglevel error -i photo.jpg -f image2pipe -c:v ppm - | posekit pose -
        let ppm = try CLI.ffmpeg(["-i", photo, "-f", "image2pipe", "-c:v", "ppm", "-"])
        let piped = try CLI.run(["pose"] + Self.fast + ["-"], stdin: ppm)
        #expect(piped.status == 0 && piped.lines.count == 1)
        #expect(direct.stdoutText.contains("\"source\": \"\(photo)\""))
        #expect(sourceAsStdin(direct.stdoutText, photo) == piped.stdoutText)
    }

    @Test func pngAndDirectoryOfMixedFormats() throws {
        let dir = try CLI.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let photo = Self.images.appendingPathComponent("coco_000000040083.jpg").path
        let png = dir.appendingPathComponent("b.png")
        _ = try CLI.ffmpeg(["-i", photo, "-vf", "scale=200:-2", png.path])
        let ppm = try CLI.ffmpeg(["-i", png.path, "-f", "image2pipe", "-c:v", "ppm", "-"])
        try ppm.write(to: dir.appendingPathComponent("a.ppm"))
        let piped = try CLI.run(["pose"] + Self.fast + ["-"], stdin: ppm)
        let direct = try CLI.run(["pose"] + Self.fast + [dir.path + "/"])
        #expect(direct.status == 0, "stderr: \(direct.stderr)")
        #expect(direct.lines.count == 2)
        let sources = direct.lines.map { sourceAsStdin($0, dir.path + "/a.ppm") }.map { sourceAsStdin($0, dir.path + "/b.png") }
        #expect(sources == [piped.stdoutText.trimmingCharacters(in: .newlines), piped.stdoutText.trimmingCharacters(in: .newlines)],
                "a PNG through ffmpeg gives what its PPM gives")
    }

    @Test func videoEqualsTheRecipe() throws {
        let dir = try CLI.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let video = try shortVideo(in: dir)
        let direct = try CLI.run(["pose"] + Self.fast + [video.path])
        #expect(direct.status == 0, "stderr: \(direct.stderr)")
        // ffmpeg -loglevel error -i clip.mp4 -f yuv4mpegpipe - | posekit pose -
        let y4m = try CLI.ffmpeg(["-i", video.path, "-f", "yuv4mpegpipe", "-"])
        let piped = try CLI.run(["pose"] + Self.fast + ["-"], stdin: y4m)
        #expect(piped.status == 0 && piped.lines.count >= 25)
        #expect(sourceAsStdin(direct.stdoutText, video.path) == piped.stdoutText)
    }

    @Test func actionsOnAVideoEqualsTheRecipe() throws {
        let dir = try CLI.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let video = try shortVideo(in: dir, seconds: "3", name: "workout.mkv")
        let args = ["actions", "--input-size", "257", "--threads", "1"]
        let direct = try CLI.run(args + [video.path])
        #expect(direct.status == 0, "stderr: \(direct.stderr)")
        let y4m = try CLI.ffmpeg(["-i", video.path, "-f", "yuv4mpegpipe", "-"])
        let piped = try CLI.run(args + ["-"], stdin: y4m)
        #expect(piped.status == 0 && piped.lines.count >= 2, "predictions and a summary")
        #expect(direct.stdout == piped.stdout)
    }

    @Test func evalOnJPEGEqualsEvalOnItsPPM() throws {
        let dir = try CLI.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let truth = Self.images.appendingPathComponent("ground_truth.json").path
        let photo = Self.images.appendingPathComponent("coco_000000000785.jpg").path
        let ppm = dir.appendingPathComponent("coco_000000000785.ppm")
        try CLI.ffmpeg(["-i", photo, "-f", "image2pipe", "-c:v", "ppm", "-"]).write(to: ppm)
        let fromJPEG = try CLI.run(["eval", "--json", "--ground-truth", truth] + Self.fast + [photo])
        let fromPPM = try CLI.run(["eval", "--json", "--ground-truth", truth] + Self.fast + [ppm.path])
        #expect(fromJPEG.status == 0, "stderr: \(fromJPEG.stderr)")
        #expect(fromPPM.status == 0 && fromJPEG.stdout == fromPPM.stdout)
        #expect(fromJPEG.stdoutText.hasPrefix("{\"images\": 1, "))
    }

    /// A file ffmpeg cannot read: one line with ffmpeg's last stderr line, exit 1, in each command.
    @Test(arguments: [["pose"], ["actions"], ["eval", "--ground-truth", images.appendingPathComponent("ground_truth.json").path]])
    func ffmpegFailureIsOneLine(_ command: [String]) throws {
        let dir = try CLI.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let broken = dir.appendingPathComponent("coco_000000000785.mp4")
        try Data([0, 0, 0, 0x18] + Array("ftypisom".utf8) + [UInt8](repeating: 0x5A, count: 200)).write(to: broken)
        let result = try CLI.run(command + [broken.path])
        #expect(result.status == 1, "stderr: \(result.stderr)")
        let lines = result.stderr.split(separator: "\n")
        #expect(lines.count == 1 && lines[0].hasPrefix("posekit: error: \(broken.path): ffmpeg: ") && lines[0].count > 40,
                "stderr: \(result.stderr)")
        #expect(result.stdout.isEmpty)
    }

    /// Without ffmpeg on PATH: one line naming the format and how to install ffmpeg.
    @Test(arguments: [("coco_000000000785.jpg", "JPEG image"), ("clip.mp4", "MP4/MOV video")])
    func withoutFFmpegTheErrorSaysHowToInstallIt(_ name: String, _ format: String) throws {
        let dir = try CLI.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let input = name.hasSuffix(".mp4") ? try shortVideo(in: dir).path : Self.images.appendingPathComponent(name).path
        let result = try CLI.run(["pose"] + Self.fast + [input], environment: ["PATH": dir.path])
        #expect(result.status == 1)
        let lines = result.stderr.split(separator: "\n")
        #expect(lines.count == 1 && lines[0].hasPrefix("posekit: error: \(input): ") && lines[0].contains(format)
                && lines[0].contains("apt-get install ffmpeg"), "stderr: \(result.stderr)")
        #expect(result.stdout.isEmpty)
    }

    /// ffmpeg's cause, not its last words: a stand-in ffmpeg on PATH writes what ffmpeg writes
    /// for a damaged file (the cause, then consequences, a CR and terminal colors) and fails.
    /// The one error line carries the "Invalid data" line, with the input named as given (not as
    /// the `file:` URL ffmpeg was handed), and no control character reaches the terminal, even
    /// from a file name holding an escape sequence. The stand-in also records its arguments:
    /// the input is a `file:` URL of the absolute path, other protocols are refused, and the
    /// demuxer is named rather than probed.
    @Test func ffmpegsCauseIsShownWithoutControlCharacters() throws {
        let dir = try CLI.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let fake = dir.appendingPathComponent("ffmpeg")
        let argumentsLog = dir.appendingPathComponent("arguments.txt")
        let script = """
            #!/bin/sh
            printf '%s\\n' "$@" > '\(argumentsLog.path)'
            for a; do case "$a" in file:*) name="$a";; esac; done
            printf '[mov,mp4,m4a,3gp,3g2,mj2 @ 0x5] moov atom not found\\n' >&2
            printf '%s: Invalid data found when processing input\\n' "$name" >&2
            printf 'Error marking filters as finished\\r\\n\\033[31mConversion failed!\\033[0m\\n' >&2
            exit 1
            """
        try Data(script.utf8).write(to: fake)
        try #require(chmod(fake.path, 0o755) == 0)
        for name in ["bad.mp4", "x\u{1B}[2J\ry.mp4"] {
            let input = dir.appendingPathComponent(name)
            try Data([0, 0, 0, 24] + Array("ftypisom".utf8) + [UInt8](repeating: 0, count: 64)).write(to: input)
            let result = try CLI.run(["pose"] + Self.fast + [name], environment: ["PATH": dir.path], directory: dir)
            #expect(result.status == 1)
            let lines = result.stderr.split(separator: "\n")
            #expect(lines.count == 1 && lines[0].contains("Invalid data found when processing input"), "stderr: \(result.stderr)")
            #expect(!result.stderr.contains("file:"), "the input is named as given: \(result.stderr)")
            #expect(!result.stderr.unicodeScalars.contains { $0.value < 0x20 && $0 != "\n" }, "control characters: \(result.stderr.debugDescription)")
            let arguments = try String(contentsOf: argumentsLog, encoding: .utf8).split(separator: "\n").map(String.init)
            #expect(arguments.contains("file:" + input.path), "\(arguments)")
            #expect(arguments.joined(separator: " ").contains("-protocol_whitelist file,pipe -f mov -i file:"), "\(arguments)")
        }
    }

    /// Processes whose command line mentions `marker` (ffmpeg children left behind).
    static func processes(mentioning marker: String) -> [String] {
        let entries = (try? FileManager.default.contentsOfDirectory(atPath: "/proc")) ?? []
        return entries.filter { Int($0) != nil }.compactMap { pid in
            guard let data = FileManager.default.contents(atPath: "/proc/\(pid)/cmdline") else { return nil }
            let line = String(decoding: data.map { $0 == 0 ? 0x20 : $0 }, as: UTF8.self)
            return line.contains(marker) ? "\(pid): \(line)" : nil
        }
    }

    /// A signal, or the reader of our output going away, while ffmpeg is still decoding (its
    /// pipe full): posekit stops, ends ffmpeg and reaps it before it exits; no hang, no orphan.
    @Test(arguments: [(SIGINT, 130), (SIGTERM, 143), (SIGHUP, 129), (SIGPIPE, 141)] as [(Int32, Int32)])
    func earlyStopEndsAndReapsFFmpeg(_ signalNumber: Int32, _ expectedStatus: Int32) throws {
        let dir = try CLI.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let video = dir.appendingPathComponent("long.mp4")
        _ = try CLI.ffmpeg(["-f", "lavfi", "-i", "testsrc=size=320x240:rate=30", "-frames:v", "600", "-c:v", "mpeg4", video.path])
        let closesOutput = signalNumber == SIGPIPE
        let live = try LiveProcess(["pose"] + Self.fast + [video.path], closeOutputAfter: closesOutput ? 2 : nil)
        #expect(live.waitForLines(2), "stderr: \(live.stderr)")
        if !closesOutput {
            let ffmpeg = Self.processes(mentioning: video.path).filter { $0.contains("ffmpeg") }
            #expect(ffmpeg.count == 1, "ffmpeg runs as a child: \(ffmpeg)")
            if let pid = ffmpeg.first.flatMap({ Int32($0.prefix { $0 != ":" }) }) {
                LiveProcess.waitUntilIdle(pid)   // ffmpeg has filled the pipe and waits on it
            }
            live.signal(signalNumber)
        }
        let status = live.finish()
        #expect(status == expectedStatus, "stderr: \(live.stderr)")
        #expect(live.lines.count < 600)
        #expect(Self.processes(mentioning: video.path).isEmpty, "ffmpeg left behind")
    }
}
