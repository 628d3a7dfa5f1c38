import Foundation
import Testing

/// What `posekit pose` adds for video and for evaluation: identities, smoothing, the COCO
/// results export and the accuracy preset, run as a user would.
@Suite(.serialized) struct PoseVideoCommandTests {
    static let images = CLI.shared.appendingPathComponent("media/images")
    static let groundTruth = images.appendingPathComponent("ground_truth.json")
    static let clip = CLI.shared.appendingPathComponent("media/videos/yuyoujiang_test_video__squat.mp4")

    func records(_ result: CLI.Result) throws -> [[String: Any]] {
        try result.lines.map { try #require(try JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any]) }
    }

    func poses(_ record: [String: Any]) -> [[String: Any]] { record["poses"] as? [[String: Any]] ?? [] }

    /// The squat clip (one person): every pose has an integer id, the person keeps one id, and
    /// smoothing changes the keypoints but not the frame count or the ids.
    @Test func videoPosesCarryStableIDsAndAreSmoothed() throws {
        let y4m = try CLI.ffmpeg(["-i", Self.clip.path, "-t", "1", "-vf", "scale=320:-2", "-f", "yuv4mpegpipe", "-"])
        let smoothed = try CLI.run(["pose", "--input-size", "257", "-"], stdin: y4m)
        let raw = try CLI.run(["pose", "--input-size", "257", "--no-smooth", "-"], stdin: y4m)
        #expect(smoothed.status == 0 && raw.status == 0, "stderr: \(smoothed.stderr) \(raw.stderr)")
        let (s, r) = (try records(smoothed), try records(raw))
        #expect(s.count == 30 && r.count == 30)
        let best = s.compactMap { poses($0).first?["id"] as? Int }
        #expect(best.count >= 25 && Set(best).count == 1, "the squatting person keeps one id: \(best)")
        #expect(s.allSatisfy { poses($0).allSatisfy { $0["id"] is Int } })
        #expect(s.map { poses($0).map { $0["id"] as? Int } } == r.map { poses($0).map { $0["id"] as? Int } })
        #expect(smoothed.stdout != raw.stdout, "smoothing is on by default for video")
    }

    /// A Y4M without a frame rate (F0:0, or no F at all): no "time", still ids (tracked at the
    /// assumed 30 fps), and the overlay video declares that same rate.
    @Test(arguments: ["F0:0", nil])
    func streamWithoutFrameRateStillGetsIDs(rate: String?) throws {
        let dir = try CLI.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        var y4m = try CLI.ffmpeg(["-i", Self.clip.path, "-frames:v", "4", "-vf", "scale=160:-2", "-f", "yuv4mpegpipe", "-"])
        let header = try #require(y4m.firstIndex(of: 0x0A))
        var fields = String(decoding: y4m[..<header], as: UTF8.self).split(separator: " ").map(String.init)
        fields = fields.compactMap { $0.hasPrefix("F") ? rate : $0 }
        y4m.replaceSubrange(..<header, with: Data(fields.joined(separator: " ").utf8))
        let overlay = dir.appendingPathComponent("overlay.y4m")
        let result = try CLI.run(["pose", "--input-size", "257", "--overlay", overlay.path, "-"], stdin: y4m)
        #expect(result.status == 0, "stderr: \(result.stderr)")
        let all = try records(result)
        #expect(all.count == 4 && all.allSatisfy { $0["time"] == nil })
        #expect(all.contains { !poses($0).isEmpty } && all.allSatisfy { poses($0).allSatisfy { $0["id"] is Int } })
        let written = try Data(contentsOf: overlay)
        let overlayHeader = String(decoding: written.prefix { $0 != 0x0A }, as: UTF8.self)
        #expect(overlayHeader.split(separator: " ").contains("F30:1"), "overlay header: \(overlayHeader)")
    }

    /// Images have no identities; --smooth on an image is a usage error (exit 2) with a clear
    /// note, found from the file name or, on stdin, from the first bytes.
    @Test func imagesHaveNoIDsAndSmoothOnAnImageIsAUsageError() throws {
        let image = Self.images.appendingPathComponent("coco_000000000785.ppm")
        let plain = try CLI.run(["pose", "--input-size", "257", image.path])
        #expect(plain.status == 0 && !plain.stdoutText.contains("\"id\""))
        let named = try CLI.run(["pose", "--smooth", image.path])
        #expect(named.status == 2 && named.stderr.contains("--smooth") && named.stderr.contains("single image"), "\(named.stderr)")
        let piped = try CLI.run(["pose", "--smooth", "--input-size", "257", "-"], stdinFile: image)  // a file: posekit stops reading early
        #expect(piped.status == 2 && piped.stderr.contains("single image") && piped.stdout.isEmpty, "\(piped.stderr)")
    }

    /// --format coco round trip: the list scores exactly like the same poses as JSON Lines,
    /// and image ids come from the ground truth (or the file names, which agree for COCO names).
    @Test func cocoExportRoundTripsThroughEval() throws {
        let dir = try CLI.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let files = try FileManager.default.contentsOfDirectory(atPath: Self.images.path)
            .filter { $0.hasSuffix(".ppm") }.sorted().map { Self.images.appendingPathComponent($0).path }
        let coco = try CLI.run(["pose", "--input-size", "257", "--format", "coco", "--ground-truth", Self.groundTruth.path] + files)
        let lines = try CLI.run(["pose", "--input-size", "257"] + files)
        #expect(coco.status == 0 && lines.status == 0, "\(coco.stderr) \(lines.stderr)")
        let list = try #require(try JSONSerialization.jsonObject(with: coco.stdout) as? [[String: Any]])
        let poseCount = try records(lines).reduce(0) { $0 + poses($1).count }
        #expect(list.count == poseCount && poseCount > 13)
        #expect(list.allSatisfy { ($0["keypoints"] as? [Double])?.count == 51 && $0["category_id"] as? Int == 1 && $0["image_id"] is Int })
        try coco.stdout.write(to: dir.appendingPathComponent("results.json"))
        try lines.stdout.write(to: dir.appendingPathComponent("poses.jsonl"))
        func ap(_ path: String) throws -> Double {
            let result = try CLI.run(["eval", "--ground-truth", Self.groundTruth.path, "--json", "--poses", path])
            #expect(result.status == 0, "\(result.stderr)")
            return try #require((try JSONSerialization.jsonObject(with: result.stdout) as? [String: Any])?["AP"] as? Double)
        }
        let fromCoco = try ap(dir.appendingPathComponent("results.json").path)
        #expect(fromCoco == (try ap(dir.appendingPathComponent("poses.jsonl").path)))
        #expect(fromCoco > 0.2, "AP \(fromCoco) at 257")
        // Without --ground-truth the COCO image's id comes from its file name.
        let named = try CLI.run(["pose", "--input-size", "257", "--format", "coco", Self.images.appendingPathComponent("coco_000000000785.ppm").path])
        let byName = try #require(try JSONSerialization.jsonObject(with: named.stdout) as? [[String: Any]])
        #expect(!byName.isEmpty && byName.allSatisfy { $0["image_id"] as? Int == 785 })
        let video = try CLI.run(["pose", "--format", "coco", "-"], stdin: try CLI.ffmpeg(["-i", Self.clip.path, "-frames:v", "1", "-vf", "scale=64:-2", "-f", "yuv4mpegpipe", "-"]))
        #expect(video.status == 1 && video.stderr.hasPrefix("posekit: error: ") && video.stderr.contains("coco"))
    }

    /// --accurate runs (a small size here, to stay cheap) and refuses options it sets itself.
    @Test func accuratePresetRunsAndRejectsConflictingOptions() throws {
        let image = Self.images.appendingPathComponent("coco_000000000785.ppm")
        let result = try CLI.run(["pose", "--accurate", "--input-size", "257", image.path])
        #expect(result.status == 0, "\(result.stderr)")
        #expect(!poses(try records(result)[0]).isEmpty)
        let conflict = try CLI.run(["pose", "--accurate", "--flip", image.path])
        #expect(conflict.status == 2 && conflict.stderr.contains("--accurate"))
    }
}
