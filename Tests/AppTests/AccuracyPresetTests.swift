import Foundation
import Testing

/// `--accurate` holds (docs/accuracy.md): on both shared image sets it scores at least the
/// default's COCO keypoint AP, and more on their union. (It was chosen on images-val; these
/// numbers also guard the set it was chosen on, so a change that breaks it anywhere shows.)
@Suite(.serialized) struct AccuracyPresetTests {
    static let sets = ["images", "images-val"].map { CLI.shared.appendingPathComponent("media/\($0)") }

    @Test func thePresetHoldsOnBothSetsAndTheirUnion() throws {
        let dir = try CLI.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let paths = try Self.sets.map { set in
            try FileManager.default.contentsOfDirectory(atPath: set.path).filter { $0.hasSuffix(".ppm") }.sorted()
                .map { set.appendingPathComponent($0).path }
        }
        // One ground truth for both sets (their image ids differ), read in place.
        var union: [String: Any] = ["images": [Any](), "annotations": [Any]()]
        for set in Self.sets {
            let truth = try #require(try JSONSerialization.jsonObject(with: Data(contentsOf: set.appendingPathComponent("ground_truth.json"))) as? [String: Any])
            union["categories"] = truth["categories"]
            for key in ["images", "annotations"] { union[key] = (union[key] as! [Any]) + (truth[key] as! [Any]) }
        }
        let unionTruth = dir.appendingPathComponent("union.json")
        try JSONSerialization.data(withJSONObject: union).write(to: unionTruth)
        let truths = Self.sets.map { $0.appendingPathComponent("ground_truth.json").path } + [unionTruth.path]
        let scored = [paths[0], paths[1], paths[0] + paths[1]]

        /// AP on images, images-val and both, from one `posekit pose` run over the 25 images.
        func scores(_ options: [String]) throws -> [Double] {
            let run = try CLI.run(["pose"] + options + paths[0] + paths[1])
            #expect(run.status == 0, "\(options): \(run.stderr)")
            return try zip(truths, scored).map { truth, images in
                let wanted = Set(images)
                let lines = run.lines.filter { line in
                    wanted.contains(((try? JSONSerialization.jsonObject(with: Data(line.utf8))) as? [String: Any])?["source"] as? String ?? "")
                }
                #expect(lines.count == images.count)
                let file = dir.appendingPathComponent("poses.jsonl")
                try Data((lines.joined(separator: "\n") + "\n").utf8).write(to: file)
                let eval = try CLI.run(["eval", "--json", "--ground-truth", truth, "--poses", file.path])
                #expect(eval.status == 0, "\(eval.stderr)")
                return try #require((try JSONSerialization.jsonObject(with: eval.stdout) as? [String: Any])?["AP"] as? Double)
            }
        }
        let (plain, accurate) = (try scores([]), try scores(["--accurate"]))
        #expect(accurate[0] >= plain[0], "images: --accurate \(accurate[0]) against the default's \(plain[0])")
        #expect(accurate[1] >= plain[1], "images-val: --accurate \(accurate[1]) against the default's \(plain[1])")
        #expect(accurate[2] > plain[2], "union: --accurate \(accurate[2]) against the default's \(plain[2])")
    }
}
