import Foundation
import Testing

/// What `posekit eval` and `pose --format coco` accept: each image once, and ground truth that
/// can be scored against. Everything refused is one line `posekit: error: ...`, exit 1, no output.
@Suite(.serialized) struct EvalInputsTests {
    static let images = CLI.shared.appendingPathComponent("media/images")
    static let truth = images.appendingPathComponent("ground_truth.json").path
    static let jpeg = images.appendingPathComponent("coco_000000000785.jpg").path
    static let ppm = images.appendingPathComponent("coco_000000000785.ppm").path
    static let fast = ["--input-size", "257"]

    static func expectRefused(_ result: CLI.Result, saying phrases: [String], _ what: String) {
        #expect(result.status == 1, "\(what): status \(result.status), stderr: \(result.stderr)")
        let lines = result.stderr.split(separator: "\n")
        #expect(lines.count == 1 && lines.first?.hasPrefix("posekit: error: ") == true, "\(what): \(result.stderr)")
        for phrase in phrases { #expect(result.stderr.contains(phrase), "\(what): \(result.stderr) lacks \"\(phrase)\"") }
        #expect(result.stdout.isEmpty, "\(what): wrote \(result.stdoutText)")
    }

    static func metrics(_ result: CLI.Result) throws -> [String: Any] {
        #expect(result.status == 0, "\(result.stderr)")
        return try #require(try JSONSerialization.jsonObject(with: result.stdout) as? [String: Any], "\(result.stderr)")
    }

    /// The shared folder holds every image twice (x.jpg and x.ppm): scored as a directory, each
    /// image counts once (the PPM copy, read as it is), with a warning per pair, and the score is
    /// that of the PPM files given one by one.
    @Test func aDirectoryWithTwoCopiesOfEachImageScoresEachOnce() throws {
        let ppms = try FileManager.default.contentsOfDirectory(atPath: Self.images.path).filter { $0.hasSuffix(".ppm") }.sorted()
            .map { Self.images.appendingPathComponent($0).path }
        let folder = try CLI.run(["eval", "--json", "--ground-truth", Self.truth] + Self.fast + [Self.images.path])
        let files = try CLI.run(["eval", "--json", "--ground-truth", Self.truth] + Self.fast + ppms)
        let (a, b) = (try Self.metrics(folder), try Self.metrics(files))
        #expect(a["images"] as? Int == 13 && b["images"] as? Int == 13)
        #expect(a["AP"] as? Double == b["AP"] as? Double && a["detections"] as? Int == b["detections"] as? Int, "\(a) vs \(b)")
        let warnings = folder.stderr.split(separator: "\n")
        #expect(warnings.count == 13, "\(folder.stderr)")
        for (warning, ppm) in zip(warnings, ppms) {
            let jpeg = String(ppm.dropLast(3)) + "jpg"
            #expect(warning.hasPrefix("posekit: warning: ") && warning.contains(jpeg) && warning.hasSuffix("using \(ppm) only"), "\(warning)")
        }
    }

    /// Two paths of one image are refused before the network runs, naming both; so is one path twice.
    @Test func twoPathsOfOneImageAreRefused() throws {
        Self.expectRefused(try CLI.run(["eval", "--ground-truth", Self.truth, Self.jpeg, Self.ppm]),
                           saying: [Self.jpeg, Self.ppm, "both image 1 of", "give only one of them"], "eval x.jpg x.ppm")
        Self.expectRefused(try CLI.run(["eval", "--ground-truth", Self.truth, Self.ppm, Self.ppm]),
                           saying: [Self.ppm, "given twice"], "eval x.ppm x.ppm")
        // A path and the directory holding it are two inputs too.
        Self.expectRefused(try CLI.run(["eval", "--ground-truth", Self.truth, Self.ppm, Self.images.path]),
                           saying: [Self.ppm, "give only one of them"], "eval x.ppm DIR")
    }

    /// `pose --format coco` says what is really missing: with --ground-truth, that the two inputs
    /// are one image; without it, the same for copies, and --ground-truth only for different
    /// pictures whose names share their digits.
    @Test func cocoExportSaysWhatIsMissing() throws {
        Self.expectRefused(try CLI.run(["pose", "--format", "coco", "--ground-truth", Self.truth, Self.jpeg, Self.ppm]),
                           saying: [Self.jpeg, Self.ppm, "both image 1 of \(Self.truth)", "give only one of them"], "coco with ground truth")
        let copies = try CLI.run(["pose", "--format", "coco", Self.jpeg, Self.ppm])
        Self.expectRefused(copies, saying: ["both image_id 785", "give only one of them"], "coco copies")
        #expect(!copies.stderr.contains("--ground-truth"), "\(copies.stderr)")

        let dir = try CLI.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let first = dir.appendingPathComponent("beach_785.ppm").path, second = dir.appendingPathComponent("city_785.ppm").path
        try FileManager.default.copyItem(atPath: Self.ppm, toPath: first)
        try FileManager.default.copyItem(atPath: Self.ppm, toPath: second)
        Self.expectRefused(try CLI.run(["pose", "--format", "coco", first, second]),
                           saying: [first, second, "give --ground-truth"], "coco, two names with the same digits")

        // A directory keeps one copy per image, as eval does: 13 images, each image_id once.
        let folder = try CLI.run(["pose", "--format", "coco", "--ground-truth", Self.truth] + Self.fast + [Self.images.path])
        #expect(folder.status == 0, "\(folder.stderr)")
        let list = try #require(try JSONSerialization.jsonObject(with: folder.stdout) as? [[String: Any]])
        let ppmOnly = try CLI.run(["pose", "--format", "coco", "--ground-truth", Self.truth] + Self.fast
                                  + (try FileManager.default.contentsOfDirectory(atPath: Self.images.path)).filter { $0.hasSuffix(".ppm") }.sorted()
                                  .map { Self.images.appendingPathComponent($0).path })
        #expect(folder.stdout == ppmOnly.stdout && !list.isEmpty)
        #expect(folder.stderr.split(separator: "\n").count == 13)
    }

    /// JSON Lines that give one image twice (a video's frames, or a copy) are refused naming both lines.
    @Test func posesGivingAnImageTwiceAreRefused() throws {
        let dir = try CLI.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let line = { (source: String) in #"{"source": "\#(source)", "frame": 0, "width": 640, "height": 425, "poses": []}"# }
        let poses = try CLI.textFile("poses.jsonl", [line(Self.ppm), line(Self.images.appendingPathComponent("coco_000000040083.ppm").path), line(Self.jpeg)]
            .joined(separator: "\n") + "\n", in: dir)
        Self.expectRefused(try CLI.run(["eval", "--ground-truth", Self.truth, "--poses", poses]),
                           saying: ["line 3 (\(Self.jpeg))", "line 1 (\(Self.ppm))", "give each image once"], "duplicate lines")
    }

    /// Ground truth that cannot be scored against, each refused in one line before anything runs.
    @Test func badGroundTruthIsRefused() throws {
        let dir = try CLI.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let image = { (id: Int, name: String) in #"{"id": \#(id), "file_name": "\#(name)", "width": 640, "height": 425}"# }
        let person = { (id: Int, imageID: Int, values: Int) -> String in
            let keypoints = (0..<values).map { $0 % 3 == 2 ? "2" : "\(100 + $0)" }.joined(separator: ", ")
            return #"{"id": \#(id), "image_id": \#(imageID), "category_id": 1, "keypoints": [\#(keypoints)], "num_keypoints": \#(values / 3), "area": 5000, "bbox": [0, 0, 100, 100]}"#
        }
        let unlabeled = #"{"id": 9, "image_id": 1, "category_id": 1, "keypoints": [\#(Array(repeating: "0", count: 51).joined(separator: ", "))], "num_keypoints": 0, "area": 5000, "bbox": [0, 0, 100, 100]}"#
        func truth(_ images: [String], _ annotations: [String]) -> String {
            #"{"images": [\#(images.joined(separator: ", "))], "annotations": [\#(annotations.joined(separator: ", "))], "categories": [{"id": 1, "name": "person"}]}"#
        }
        let name = "coco_000000000785.jpg", other = "coco_000000040083.jpg"
        let cases: [(String, String, [String])] = [
            ("no people", truth([image(1, name)], []), ["no person with labeled keypoints"]),
            ("people without labeled keypoints", truth([image(1, name)], [unlabeled]), ["no person with labeled keypoints"]),
            ("duplicate image ids", truth([image(1, name), image(1, other)], [person(1, 1, 51)]), ["image id 1 is used twice"]),
            ("duplicate file names", truth([image(1, name), image(2, name)], [person(1, 1, 51)]), ["images 1 and 2 have the same file name"]),
            ("an annotation on no listed image", truth([image(1, name)], [person(1, 7, 51)]), ["annotation 1 is on image 7"]),
            ("keypoints of the wrong length", truth([image(1, name)], [person(1, 1, 48)]), ["annotation 1 has 48 keypoint values, expected 51"]),
        ]
        for (what, text, phrases) in cases {
            let path = try CLI.textFile("truth.json", text, in: dir)
            Self.expectRefused(try CLI.run(["eval", "--ground-truth", path, Self.ppm]), saying: [path] + phrases, what)
        }
        // An image of the run missing from the ground truth, or images that hold nobody to find.
        let one = try CLI.textFile("one.json", truth([image(1, name), image(2, other)], [person(1, 1, 51)]), in: dir)
        Self.expectRefused(try CLI.run(["eval", "--ground-truth", one, Self.images.appendingPathComponent("mpii_052475643.ppm").path]),
                           saying: ["mpii_052475643.ppm: no image of that name in \(one)"], "image missing from the ground truth")
        Self.expectRefused(try CLI.run(["eval", "--ground-truth", one, Self.images.appendingPathComponent("coco_000000040083.ppm").path]),
                           saying: ["the 1 image(s) scored hold no person with labeled keypoints", "AP is undefined"], "image without people")
    }
}
