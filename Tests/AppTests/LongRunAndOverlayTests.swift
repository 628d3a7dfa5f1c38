import Foundation
import Testing

/// What a long run shows and what an overlay keeps: progress with a total and ETA when the
/// container knows the length, none for an input that fails to open, one warning for a variable
/// frame rate, the input's audio in an encoded overlay, file paths in shell completions.
@Suite(.serialized) struct LongRunAndOverlayTests {
    /// A small synthetic video: `frames` of a test pattern at `rate`, with a sine tone when `audio`;
    /// `variable` makes the second half come at half the rate (timestamps 2 frames apart).
    static func video(in dir: URL, _ name: String, frames: Int = 30, rate: Int = 30, audio: Bool = false, variable: Bool = false) throws -> URL {
        let url = dir.appendingPathComponent(name)
        var arguments = ["-f", "lavfi", "-i", "testsrc=size=160x120:rate=\(rate)"]
        if audio { arguments += ["-f", "lavfi", "-i", "sine=frequency=440:sample_rate=44100"] }
        arguments += ["-frames:v", "\(frames)"]
        if variable {
            let half = frames / 2
            arguments += ["-vf", "setpts='if(lt(N,\(half)),N,\(half)+2*(N-\(half)))/\(rate)/TB'", "-fps_mode", "vfr"]
        }
        if audio { arguments += ["-c:a", "aac", "-shortest"] }
        arguments += ["-c:v", "libx264", "-pix_fmt", "yuv420p", "-y", url.path]
        try CLI.ffmpeg(arguments)
        return url
    }

    static func streams(_ url: URL) throws -> [String] {
        let result = try CLI.runProcess(URL(fileURLWithPath: "/usr/bin/env"),
                                        ["ffprobe", "-v", "error", "-show_entries", "stream=codec_type", "-of", "csv=p=0", url.path])
        return result.stdoutText.split(separator: "\n").map(String.init)
    }

    @Test func progressHasTotalPercentAndETAWhenTheLengthIsKnown() throws {
        let dir = try CLI.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let clip = try Self.video(in: dir, "clip.mp4", frames: 30)
        let result = try CLI.run(["pose", "--progress", "--input-size", "257", clip.path])
        #expect(result.status == 0, "\(result.stderr)")
        let lines = result.stderr.split(separator: "\n").map(String.init)
        #expect(lines.last?.hasPrefix("frames 30  ") == true, "\(result.stderr)")
        // Lines while running: `frames N/30 (P%)  ETA m:ss  R frames/s` (at most one every 2 s when not a terminal).
        for line in lines.dropLast() {
            #expect(line.range(of: #"^frames \d+/30 \(\d+%\)  ETA \d+:\d\d  [\d.]+ frames/s$"#, options: .regularExpression) != nil, "\(line)")
        }
        // A failed open: the one error line, no progress line.
        let broken = dir.appendingPathComponent("broken.mp4")
        try Data("not a video at all".utf8).write(to: broken)
        let failed = try CLI.run(["pose", "--progress", broken.path])
        #expect(failed.status == 1 && !failed.stderr.contains("frames "), "\(failed.stderr)")
        #expect(failed.stderr.split(separator: "\n").count == 1, "\(failed.stderr)")
    }

    @Test func variableFrameRateGetsOneWarningLine() throws {
        let dir = try CLI.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let vfr = try Self.video(in: dir, "vfr.mp4", frames: 20, variable: true)
        let result = try CLI.run(["pose", "--input-size", "257", vfr.path])
        #expect(result.status == 0, "\(result.stderr)")
        let warnings = result.stderr.split(separator: "\n").filter { $0.hasPrefix("posekit: warning: ") }
        #expect(warnings.count == 1, "\(result.stderr)")
        #expect(warnings.first?.contains("vfr.mp4: variable frame rate") == true && warnings.first?.contains("repeats or drops frames") == true,
                "\(result.stderr)")
        // ffmpeg fills the slow half at the nominal rate: more lines than the 20 frames stored.
        #expect(result.lines.count > 20, "\(result.lines.count) lines")
        let constant = try CLI.run(["pose", "--input-size", "257", try Self.video(in: dir, "cfr.mp4", frames: 10).path])
        #expect(constant.status == 0 && constant.stderr.isEmpty, "\(constant.stderr)")
    }

    @Test func encodedOverlayKeepsTheInputsAudio() throws {
        let dir = try CLI.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let clip = try Self.video(in: dir, "talk.mp4", frames: 15, audio: true)
        #expect(try Self.streams(clip).sorted() == ["audio", "video"])
        let overlay = dir.appendingPathComponent("overlay.mp4")
        let result = try CLI.run(["pose", "--input-size", "257", "--overlay", overlay.path, "--overlay-ids", "--json", dir.appendingPathComponent("p.jsonl").path, clip.path])
        #expect(result.status == 0, "\(result.stderr)")
        #expect(try Self.streams(overlay).sorted() == ["audio", "video"])
        // Without audio in the input, none in the output.
        let silent = try Self.video(in: dir, "silent.mp4", frames: 5)
        let quiet = dir.appendingPathComponent("quiet.mkv")
        #expect(try CLI.run(["pose", "--input-size", "257", "--overlay", quiet.path, "--json", "/dev/null", silent.path]).status == 0)
        #expect(try Self.streams(quiet) == ["video"])
    }

    /// bash completion of `posekit pose <prefix>` and `posekit actions --classifier <prefix>`
    /// offers the files there.
    @Test func bashCompletionCompletesFilePaths() throws {
        let dir = try CLI.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let script = dir.appendingPathComponent("posekit.bash")
        try CLI.run(["--generate-completion-script", "bash"]).stdout.write(to: script)
        try Data().write(to: dir.appendingPathComponent("workout-clip.mp4"))
        try Data().write(to: dir.appendingPathComponent("workout-model.mlmodel"))
        func complete(_ words: [String]) throws -> String {
            let line = words.map { "'\($0)'" }.joined(separator: " ")
            let program = """
            source '\(script.path)'
            cd '\(dir.path)'
            COMP_WORDS=(\(line)); COMP_CWORD=\(words.count - 1); COMP_LINE="\(words.joined(separator: " "))"; COMP_POINT=${#COMP_LINE}
            _posekit posekit '\(words.last!)' '\(words[words.count - 2])' 2>/dev/null
            printf '%s\\n' "${COMPREPLY[@]}"
            """
            return try CLI.runProcess(URL(fileURLWithPath: "/bin/bash"), ["-c", program]).stdoutText
        }
        let inputs = try complete(["posekit", "pose", "workout-c"])
        #expect(inputs.contains("workout-clip.mp4"), "pose completes: \(inputs)")
        let model = try complete(["posekit", "actions", "--classifier", "workout-"])
        #expect(model.contains("workout-model.mlmodel"), "--classifier completes: \(model)")
    }
}
