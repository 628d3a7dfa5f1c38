import Foundation
import Testing

/// `posekit eval` and `posekit actions` as a user runs them.
@Suite(.serialized) struct EvalAndActionsCommandTests {
    static let images = CLI.shared.appendingPathComponent("media/images")
    static let truth = images.appendingPathComponent("ground_truth.json").path

    static func imagePaths() throws -> [String] {
        try FileManager.default.contentsOfDirectory(atPath: images.path).filter { $0.hasSuffix(".ppm") }.sorted()
            .map { images.appendingPathComponent($0).path }
    }

    static func metrics(_ result: CLI.Result) throws -> [String: Any] {
        try #require(try JSONSerialization.jsonObject(with: result.stdout) as? [String: Any], "stderr: \(result.stderr)")
    }

    /// The JSON Lines of `posekit pose` score exactly what `posekit eval` scores on the same images.
    @Test func poseOutputScoresTheSameAsEval() throws {
        let paths = try Self.imagePaths()
        let dir = try CLI.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let posesFile = dir.appendingPathComponent("poses.jsonl")
        let pose = try CLI.run(["pose", "--input-size", "353"] + paths)
        #expect(pose.status == 0)
        try pose.stdout.write(to: posesFile)
        let direct = try Self.metrics(try CLI.run(["eval", "--ground-truth", Self.truth, "--input-size", "353", "--json"] + paths))
        let fromLines = try Self.metrics(try CLI.run(["eval", "--ground-truth", Self.truth, "--poses", posesFile.path, "--json"]))
        let a = try #require(direct["AP"] as? Double), b = try #require(fromLines["AP"] as? Double)
        #expect(abs(a - b) < 1e-3, "eval \(a) vs pose JSON Lines \(b)")
        #expect(direct["images"] as? Int == paths.count)
    }

    /// Accuracy guard at the issue's setting (MobileNet 0.75 at 513): the numpy reference pipeline
    /// scores 0.526 (pycocotools OKS) and 0.665 (OKS with doubled area, the shared README's scale).
    @Test func accuracyAt513StaysAtTheReferenceLevel() throws {
        let paths = try Self.imagePaths()
        let standard = try Self.metrics(try CLI.run(["eval", "--ground-truth", Self.truth, "--input-size", "513", "--json"] + paths))
        let lenient = try Self.metrics(try CLI.run(["eval", "--ground-truth", Self.truth, "--input-size", "513",
                                                    "--oks-area-scale", "2", "--flip", "--json"] + paths))
        let standardAP = try #require(standard["AP"] as? Double), lenientAP = try #require(lenient["AP"] as? Double)
        #expect(standardAP >= 0.515)
        #expect(lenientAP >= 0.665)
    }

    @Test func evalRejectsAnImageWithoutGroundTruth() throws {
        let result = try CLI.run(["eval", "--ground-truth", Self.truth,
                                  CLI.shared.appendingPathComponent("reference/mobilenet075__person-linda__513_os16/input.ppm").path])
        #expect(result.status == 1 && result.stderr.hasPrefix("posekit: error: ") && result.stderr.contains("no image"), "\(result.stderr)")
    }

    @Test func actionsOnMalformedPosesIsOneLineError() throws {
        let good = #"{"frame": 0, "time": 0.0, "width": 10, "height": 10, "poses": []}"#
        for bad in ["not json", #"{"frame": 1, "poses": "x"}"#, #"{"frame": 2, "poses": [{"keypoints": [{"part": "nose"}]}]}"#] {
            let result = try CLI.run(["actions", "--poses", "-"], stdin: Data((good + "\n" + bad + "\n").utf8))
            #expect(result.status == 1, "\(bad): status \(result.status)")
            let lines = result.stderr.split(separator: "\n")
            #expect(lines.count == 1 && lines[0].hasPrefix("posekit: error: ") && lines[0].contains("line 2"), "\(bad): \(result.stderr)")
        }
    }

    /// Shorter than one window and nobody in it: still a prediction and a summary, no crash.
    @Test func actionsOnAShortEmptyStream() throws {
        let frames = (0..<12).map { #"{"frame": \#($0), "time": \#(Double($0) / 25), "width": 64, "height": 48, "poses": []}"# }
        let result = try CLI.run(["actions", "--poses", "-"], stdin: Data(frames.joined(separator: "\n").utf8))
        #expect(result.status == 0, "\(result.stderr)")
        let objects = try result.lines.map { try JSONSerialization.jsonObject(with: Data($0.utf8)) as! [String: Any] }
        #expect(objects.last?["type"] as? String == "summary")
        #expect(objects.last?["frames"] as? Int == 12)
        let labels = objects.filter { $0["type"] as? String == "prediction" }.map { $0["label"] as? String }
        #expect(!labels.isEmpty && labels.allSatisfy { $0 == "no_person" })
    }

    /// The summary's repetition counts, its rejected turning points and label, and the rep events
    /// of `posekit actions` output lines.
    func repetitions(_ result: CLI.Result) throws -> (reps: [String: Int], events: [[String: Any]], label: String?, rejected: [String: Int]) {
        #expect(result.status == 0, "\(result.stderr)")
        let objects = try result.lines.map { try #require(try JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any]) }
        let summary = try #require(objects.last)
        return (try #require(summary["reps"] as? [String: Int]), objects.filter { $0["type"] as? String == "rep" }, summary["label"] as? String,
                try #require(summary["rejected_reps"] as? [String: Int]))
    }

    /// A real clip the committed weights never saw, through ffmpeg → posekit actions as a user runs
    /// it: seconds 17 to 23.8 of the lunges video, whose seconds 7 to 17 are the training clip
    /// `lunges_02` (labels.json); this part is in no training set. Hand-labeled from a 3 frames/s
    /// contact sheet: standing at the start and the end, three forward lunges with their deepest
    /// point at about 1.2, 3.4 and 5.5 s. The summary must say lunges, count exactly 3, at those times.
    @Test func actionsOnAClipTheWeightsNeverSaw() throws {
        let video = CLI.shared.appendingPathComponent("media/videos/TomNotchYmk_lhpe3d-demo__lunges.mp4")
        let y4m = try CLI.ffmpeg(["-ss", "17", "-i", video.path, "-t", "6.8", "-an",
                                  "-vf", "scale='min(640,iw)':-2:flags=lanczos,format=yuv420p", "-f", "yuv4mpegpipe", "-"])
        let (reps, events, label, _) = try repetitions(try CLI.run(["actions", "-"], stdin: y4m))
        #expect(label == "lunges")
        #expect(reps == ["jumping_jacks": 0, "lunges": 3, "burpees": 0, "squats": 0], "\(reps)")
        let times = events.compactMap { $0["time"] as? Double }
        #expect(times.count == 3)
        for (counted, labeled) in zip(times, [1.2, 3.4, 5.5]) { #expect(abs(counted - labeled) < 0.5, "turning point at \(counted) s") }
    }

    /// The whole squat video, of which `squats_01` is the first 9.6 s, as a user runs it:
    /// `posekit actions VIDEO.mp4`, decoded at its own 960×544: exactly the three labeled squats
    /// count, at their times. After the squats the man walks toward the camera. With the one
    /// default (513, smoothed) the walk makes no squat turning point at all; with raw poses at 353
    /// (the old `actions` default) PoseNet places an ankle too high, so his hips seem to drop by
    /// 30 % while his knees stay straight: that turning point fails the squat's posture rule (both
    /// knees bent) and is visible as one `rejected_rep` line naming the rule, its reading and the
    /// threshold, and in `rejected_reps`, while the count stays 3.
    @Test func theWholeSquatVideoCountsTheSquatsNotTheWalk() throws {
        let video = CLI.shared.appendingPathComponent("media/videos/yuyoujiang_test_video__squat.mp4")
        for options in [[], ["--input-size", "353", "--no-smooth"]] {
            let result = try CLI.run(["actions"] + options + [video.path])
            let (reps, events, label, rejected) = try repetitions(result)
            #expect(label == "squats")
            #expect(reps == ["jumping_jacks": 0, "lunges": 0, "burpees": 0, "squats": 3], "\(options): \(reps)")
            let times = events.compactMap { $0["time"] as? Double }
            #expect(times.count == 3)
            for (counted, labeled) in zip(times, try #require(Self.labeledTurningPoints["squats_01"])) {
                #expect(abs(counted - labeled) < 0.5, "\(options): turning point at \(counted) s")
            }
            let walk = options.isEmpty ? 0 : 1
            #expect(rejected == ["jumping_jacks": 0, "lunges": 0, "burpees": 0, "squats": walk], "\(options): \(rejected)")
            let lines = try result.lines.map { try #require(try JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any]) }
            let rejections = lines.filter { $0["type"] as? String == "rejected_rep" }
            #expect(rejections.count == walk, "\(options): \(rejections)")
            for r in rejections {
                #expect(r["label"] as? String == "squats" && r["rule"] as? String == "knees_bent" && r["threshold"] as? Int == 60, "\(r)")
                #expect((r["reading"] as? Int ?? 99) < 60 && (r["time"] as? Double ?? 0) > 9, "the walk, after the squats: \(r)")
            }
        }
    }

    /// Turning points of the shared clips, seconds, from labels.json's notes (hand-labeled).
    static let labeledTurningPoints: [String: [Double]] = [
        "jumping_jacks_01": (0..<12).map { 0.68 + 0.823 * Double($0) },
        "jumping_jacks_02": [1.5, 2.85, 4.15, 5.5, 6.85, 8.15, 9.5],
        "lunges_02": [1.4, 3.3, 5.3, 7.4, 9.4],
        "squats_01": [2.7, 5.6, 8.5],
        "other_pushups_01": [],
    ]

    /// Every shared clip: `posekit pose` with the one default `actions` runs too (513, smoothed), then `posekit actions --poses`
    /// on the whole clip and on the clip cut at every half second: the summary names the clip's
    /// label and counts exactly the labeled turning points before the end (push-ups are `other`:
    /// no exercise repetitions at all). Cuts within 0.25 s of a turning point are skipped, since
    /// the labeled times are that approximate. One clip per test case.
    @Test(arguments: CLI.sharedClipNames)
    func actionsOnARealClipCountsExactlyWhereverItEnds(name: String) throws {
        let (y4m, clip) = try CLI.sharedClip(name)
        // The poses `actions` itself finds (one default; the One-Euro filter is causal, so a cut
        // input's poses are the whole input's up to the cut).
        let posed = try CLI.run(["pose", "-"], stdin: y4m)
        #expect(posed.status == 0, "\(posed.stderr)")
        let lines = posed.lines
        #expect(try IdentityTests.identityChanges(lines) == 0, "\(name): the person's id changed")
        let times = try lines.map { try #require((try JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any])?["time"] as? Double) }
        let label = clip["label"] as! String
        let turns = try #require(Self.labeledTurningPoints[name])
        #expect(label == "other" || turns.count == clip["repetitions"] as? Int)

        let (reps, events, summaryLabel, rejected) = try repetitions(try CLI.run(["actions", "--poses", "-"], stdin: Data((lines.joined(separator: "\n") + "\n").utf8)))
        #expect(summaryLabel == label)
        for (exercise, n) in reps { #expect(n == (exercise == label ? turns.count : 0), "\(exercise): counted \(n)") }
        // No real repetition fails its posture rule.
        #expect(rejected.values.allSatisfy { $0 == 0 }, "\(rejected)")
        let mine = events.filter { $0["label"] as? String == label }
        #expect(mine.compactMap { $0["count"] as? Int } == (0..<turns.count).map { $0 + 1 })
        let cue: Set<String> = label == "jumping_jacks" ? ["arm_angle", "feet_apart"] : ["depth", "knee_angle", "hips_below_knees"]
        for e in mine { #expect(cue.isSubset(of: Set(e.keys)), "\(e.keys)") }

        guard label != "other" else { return }
        for cut in stride(from: 2.5, through: 9.5, by: 0.5) where !turns.contains(where: { abs($0 - cut) < 0.25 }) {
            let kept = zip(lines, times).filter { $0.1 <= cut }.map(\.0)
            let (partReps, _, _, _) = try repetitions(try CLI.run(["actions", "--poses", "-"], stdin: Data((kept.joined(separator: "\n") + "\n").utf8)))
            let expected = turns.filter { $0 < cut }.count
            #expect(partReps[label] == expected, "\(name) cut at \(cut) s: counted \(String(describing: partReps[label])), turning points before it \(expected)")
        }
    }
}
