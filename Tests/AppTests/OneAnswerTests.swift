import Foundation
import Testing

/// One answer: `posekit actions CLIP` and `posekit pose CLIP | posekit actions --poses -` find the
/// same poses (one default for every setting that affects them), so they give the same events and
/// summary, with ActionNet and with a Create ML classifier. Short segments of the shared clips
/// (each runs PoseNet three times).
@Suite(.serialized) struct OneAnswerTests {
    /// Segments with repetitions in them: (clip, start s, seconds).
    static let segments: [(String, Double, Double)] = [("jumping_jacks_02", 0, 4), ("squats_01", 1.5, 5)]

    static func events(_ result: CLI.Result) throws -> [[String: Any]] {
        #expect(result.status == 0, "\(result.stderr)")
        return try result.lines.map { try #require(try JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any]) }
    }

    @Test(arguments: segments.map(\.0))
    func actionsAndPosePipedIntoActionsAgree(_ name: String) throws {
        let (_, start, seconds) = Self.segments.first { $0.0 == name }!
        let (clip, _) = try CLI.sharedClip(name)
        let dir = try CLI.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let whole = dir.appendingPathComponent("whole.y4m")
        try clip.write(to: whole)
        let segment = try CLI.ffmpeg(["-ss", "\(start)", "-i", whole.path, "-t", "\(seconds)", "-f", "yuv4mpegpipe", "-"])
        let posed = try CLI.run(["pose", "-"], stdin: segment)
        #expect(posed.status == 0, "\(posed.stderr)")
        for classifier in [[], ["--classifier", CreateMLCommandTests.exercise.path]] {
            let direct = try Self.events(try CLI.run(["actions"] + classifier + ["-"], stdin: segment))
            let piped = try Self.events(try CLI.run(["actions"] + classifier + ["--poses", "-"], stdin: posed.stdout))
            let what = "\(name) \(classifier.isEmpty ? "ActionNet" : "ExerciseClassifier")"
            #expect(direct.count == piped.count, "\(what): \(direct.count) events, piped \(piped.count)")
            for (a, b) in zip(direct, piped) {
                #expect(a["type"] as? String == b["type"] as? String && a["label"] as? String == b["label"] as? String, "\(what): \(a) / \(b)")
                #expect(a["frame"] as? Int == b["frame"] as? Int && a["frame_start"] as? Int == b["frame_start"] as? Int, "\(what)")
                // Poses through JSON carry 2 decimals of a pixel: probabilities agree to far under 0.01.
                if let p = a["probabilities"] as? [String: Double], let q = b["probabilities"] as? [String: Double] {
                    for (label, value) in p { #expect(abs(value - (q[label] ?? -1)) < 0.01, "\(what): \(label) \(value) / \(q[label] ?? -1)") }
                }
            }
            let summaries = (direct.last, piped.last)
            #expect(summaries.0?["type"] as? String == "summary")
            #expect(NSDictionary(dictionary: summaries.0 ?? [:]) == NSDictionary(dictionary: summaries.1 ?? [:]), "\(what): \(summaries)")
            if classifier.isEmpty {
                // Repetitions were there to agree on.
                #expect(((summaries.0?["reps"] as? [String: Int]) ?? [:]).values.reduce(0, +) >= 2, "\(what): \(summaries.0 ?? [:])")
            }
        }
    }
}
