import Foundation
import Testing

/// `posekit pose` run as a subprocess on real inputs: JSON validity, frame counts, coordinates,
/// exit codes and the one-line errors for bad input.
@Suite(.serialized) struct PoseCommandTests {
    static let images = CLI.shared.appendingPathComponent("media/images")
    static let clip = CLI.shared.appendingPathComponent("media/videos/yuyoujiang_test_video__squat.mp4")

    /// Checks one JSON Lines record against the documented schema; returns its poses.
    @discardableResult
    func checkRecord(_ line: String, width: Int, height: Int, video: Bool) throws -> [[String: Any]] {
        let object = try #require(try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any])
        #expect(object["width"] as? Int == width && object["height"] as? Int == height)
        #expect(object["source"] is String && object["frame"] is Int)
        #expect((object["time"] != nil) == video, "time is present for video only")
        let poses = try #require(object["poses"] as? [[String: Any]])
        for pose in poses {
            let keypoints = try #require(pose["keypoints"] as? [[String: Any]])
            #expect(keypoints.map { $0["part"] as? String } == [
                "nose", "leftEye", "rightEye", "leftEar", "rightEar", "leftShoulder", "rightShoulder", "leftElbow",
                "rightElbow", "leftWrist", "rightWrist", "leftHip", "rightHip", "leftKnee", "rightKnee", "leftAnkle", "rightAnkle"])
            for k in keypoints {
                let x = try #require(k["x"] as? Double), y = try #require(k["y"] as? Double), s = try #require(k["score"] as? Double)
                // Not clamped: a keypoint may lie a little outside the frame (a head cut off at the
                // top), never far (a tenth of the frame; one output cell at these sizes is less).
                let margin = 0.1 * Double(max(width, height))
                #expect(x >= -margin && x < Double(width) + margin && y >= -margin && y < Double(height) + margin,
                        "keypoint (\(x), \(y)) far outside \(width)x\(height)")
                #expect(s >= 0 && s <= 1)
            }
            let box = try #require(pose["box"] as? [Double])
            #expect(box.count == 4 && box[0] <= box[2] && box[1] <= box[3])
            let score = try #require(pose["score"] as? Double)
            #expect(score >= 0 && score <= 1)
        }
        return poses
    }

    @Test func imagesGiveOneRecordEach() throws {
        let files = ["coco_000000000785.ppm", "mpii_052475643.ppm", "h36m_S7_Greeting.55011271_000396.ppm"]
        let result = try CLI.run(["pose"] + files.map { Self.images.appendingPathComponent($0).path })
        #expect(result.status == 0, "stderr: \(result.stderr)")
        #expect(result.lines.count == files.count)
        let truth = try JSONSerialization.jsonObject(with: Data(contentsOf: Self.images.appendingPathComponent("ground_truth.json"))) as! [String: Any]
        let sizes = Dictionary(uniqueKeysWithValues: (truth["images"] as! [[String: Any]]).map {
            ($0["ppm_file"] as! String, ($0["width"] as! Int, $0["height"] as! Int))
        })
        for (file, line) in zip(files, result.lines) {
            let (w, h) = try #require(sizes[file])
            let poses = try checkRecord(line, width: w, height: h, video: false)
            #expect(!poses.isEmpty, "\(file): every test image shows at least one person")
        }
    }

    @Test func y4mFromFfmpegGivesOneRecordPerFrame() throws {
        let y4m = try CLI.ffmpeg(["-i", Self.clip.path, "-t", "1", "-vf", "scale=320:-2", "-f", "yuv4mpegpipe", "-"])
        let result = try CLI.run(["pose", "--input-size", "257", "-"], stdin: y4m)
        #expect(result.status == 0, "stderr: \(result.stderr)")
        #expect(result.lines.count == 30, "1 s at 30 fps")
        for (index, line) in result.lines.enumerated() {
            try checkRecord(line, width: 320, height: 182, video: true)
            let object = try JSONSerialization.jsonObject(with: Data(line.utf8)) as! [String: Any]
            #expect(object["frame"] as? Int == index)
            #expect(abs((object["time"] as! Double) - Double(index) / 30) < 1e-3)
        }
        #expect(result.lines.filter { $0.contains("\"nose\"") }.count >= 25, "the person is found in almost every frame")
    }

    @Test func overlayStreamDecodesWithFfmpeg() throws {
        let dir = try CLI.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let input = dir.appendingPathComponent("in.y4m")
        try CLI.ffmpeg(["-i", Self.clip.path, "-t", "0.5", "-vf", "scale=320:-2", "-f", "yuv4mpegpipe", input.path])
        let json = dir.appendingPathComponent("poses.jsonl")
        let result = try CLI.run(["pose", "--input-size", "257", "--overlay", "-", "--json", json.path, input.path])
        #expect(result.status == 0, "stderr: \(result.stderr)")
        let overlay = dir.appendingPathComponent("overlay.y4m")
        try result.stdout.write(to: overlay)
        let probe = try CLI.runProcess(URL(fileURLWithPath: "/usr/bin/env"), [
            "ffprobe", "-v", "error", "-count_frames", "-select_streams", "v:0",
            "-show_entries", "stream=width,height,nb_read_frames", "-of", "csv=p=0", overlay.path])
        #expect(probe.stdoutText.trimmingCharacters(in: .whitespacesAndNewlines) == "320,182,15")
        #expect(try String(contentsOf: json, encoding: .utf8).split(separator: "\n").count == 15)
    }

    /// --realtime drops frames that arrive while the network is busy, accounts for every one of
    /// them, and keeps the delivered frames in order. Drops are certain: 300 tiny frames arrive
    /// at once (reading one takes microseconds) while each network pass at 513 takes
    /// milliseconds, so the consumer cannot keep up however loaded the machine is.
    @Test func realtimeDropsLateFramesAndSaysHowMany() throws {
        let frameCount = 300
        let result = try CLI.run(["pose", "--realtime", "--input-size", "513", "--threads", "1", "-"],
                                 stdin: SyntheticY4M.stream(frames: frameCount))
        try Self.expectLateFramesDropped(result, frameCount: frameCount)
    }

    /// A `--realtime` run on `frameCount` frames that arrived at once: exit 0, the delivered
    /// frames in order, the newest never dropped, some dropped, and every frame accounted for.
    static func expectLateFramesDropped(_ result: CLI.Result, frameCount: Int) throws {
        #expect(result.status == 0, "stderr: \(result.stderr)")
        let frames = try result.lines.map { try #require((try JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any])?["frame"] as? Int) }
        #expect(frames == frames.sorted() && Set(frames).count == frames.count, "delivered frames stay in order")
        #expect(frames.last == frameCount - 1, "the newest frame is never dropped")
        let report = try #require(result.stderr.firstMatch(of: /dropped (\d+) late frame\(s\) of (\d+)/), "stderr: \(result.stderr)")
        let dropped = try #require(Int(report.1)), total = try #require(Int(report.2))
        #expect(dropped > 0, "a consumer this slow must drop frames")
        #expect(total == frameCount && frames.count + dropped == frameCount, "frames in = lines written + dropped")
    }

    @Test func truncatedVideoKeepsCompleteFramesAndFails() throws {
        let y4m = try CLI.ffmpeg(["-i", Self.clip.path, "-frames:v", "3", "-vf", "scale=160:-2", "-f", "yuv4mpegpipe", "-"])
        let cut = y4m.prefix(y4m.count - 1000)  // the third frame loses its tail
        let result = try CLI.run(["pose", "--input-size", "257", "-"], stdin: Data(cut))
        #expect(result.status == 1)
        #expect(result.lines.count == 2, "both complete frames are still delivered")
        let errorLines = result.stderr.split(separator: "\n")
        #expect(errorLines.count == 1 && errorLines[0].hasPrefix("posekit: error: "), "stderr: \(result.stderr)")
        #expect(result.stderr.contains("frame 2"), "the message names the frame reached: \(result.stderr)")
    }

    @Test(arguments: [
        ("P6\n4 4\n255\n" + String(repeating: "x", count: 10), "ends inside"),
        ("GIF89a garbage", "signature"),
        ("P6\n-4 4\n255\n", "invalid header"),
        ("P6\n100000 100000\n255\n", "exceeds the limit"),
        ("YUV4MPEG2 W64 H48 F30:1 Cxyz\nFRAME\n", "color space"),
        ("", "empty"),
    ])
    func badInputIsOneLineErrorAndExitOne(_ input: String, _ expected: String) throws {
        let result = try CLI.run(["pose", "-"], stdin: Data(input.utf8))
        #expect(result.status == 1, "\(input.prefix(20)): status \(result.status)")
        let lines = result.stderr.split(separator: "\n")
        #expect(lines.count == 1 && lines[0].hasPrefix("posekit: error: ") && lines[0].contains(expected),
                "\(input.prefix(20)): stderr \(result.stderr)")
        #expect(result.stdout.isEmpty)
    }

    @Test func missingFileAndModelSayWhatToDo() throws {
        let missing = try CLI.run(["pose", "/nonexistent/photo.ppm"])
        #expect(missing.status == 1 && missing.stderr.hasPrefix("posekit: error: /nonexistent/photo.ppm"), "\(missing.stderr)")
        // A misspelt model: the names --model takes and the nearest (a usage error, before any work).
        let noModel = try CLI.run(["pose", "--model", "mobilenet999", Self.images.appendingPathComponent("coco_000000000785.ppm").path])
        #expect(noModel.status == 2 && noModel.stderr.contains("did you mean 'mobilenet075'?"), "\(noModel.stderr)")
    }

    @Test(arguments: [["pose"], ["pose", "--no-such-option", "x.ppm"], ["pose", "--output-stride", "7", "x.ppm"],
                      ["pose", "--max-poses", "0", "x.ppm"], ["frobnicate"]])
    func usageErrorsExitTwo(_ arguments: [String]) throws {
        let result = try CLI.run(arguments)
        #expect(result.status == 2, "\(arguments): status \(result.status), stderr \(result.stderr)")
        #expect(!result.stderr.isEmpty && result.stdout.isEmpty)
    }

    @Test func helpTeachesWithExamples() throws {
        let result = try CLI.run(["pose", "--help"])
        #expect(result.status == 0)
        #expect(result.stdoutText.contains("ffmpeg") && result.stdoutText.contains("EXAMPLES"))
    }

    @Test func closedOutputPipeEndsQuietly() throws {
        // `posekit pose ... | head -c 100`: the reader goes away after the first bytes.
        let dir = try CLI.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let input = dir.appendingPathComponent("in.y4m")
        try CLI.ffmpeg(["-i", Self.clip.path, "-t", "2", "-vf", "scale=160:-2", "-f", "yuv4mpegpipe", input.path])
        let script = "set -o pipefail; '\(CLI.executable.path)' pose --input-size 129 '\(input.path)' 2>'\(dir.path)/err' | head -c 100 >/dev/null; echo $?"
        let result = try CLI.runProcess(URL(fileURLWithPath: "/bin/bash"), ["-c", script])
        let status = result.stdoutText.trimmingCharacters(in: .whitespacesAndNewlines)
        #expect(status == "141", "exit status as for SIGPIPE, got \(status)")
        #expect(try String(contentsOf: dir.appendingPathComponent("err"), encoding: .utf8).isEmpty, "no message, no crash trace")
    }
}
