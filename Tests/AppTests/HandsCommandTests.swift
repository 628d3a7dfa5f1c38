import CLibJPEG
import Foundation
import MediaPipe
import ModelGraph
import PoseKit
import Testing

/// `posekit hands` and `HandDetector`: MediaPipe's hands on the reference images (its own goldens),
/// handedness, the library's bytes, video with ids, and bad input.
///
/// MediaPipe's goldens were made from libjpeg-decoded pixels; FrameIO decodes JPEG through ffmpeg
/// (up to 22 levels apart on these files), so the images are given to the command as PPMs
/// written from the test-only libjpeg decode: the same pixels MediaPipe saw.
@Suite(.serialized) struct HandsCommandTests {
    static let pipelines = CLI.shared.appendingPathComponent("reference/mediapipe/pipelines")
    /// The reference images with hands (MediaPipe finds 1-2 in each), and one without.
    static let withHands = ["mpii_004645041", "mpii_060754485", "person-linda"]
    static let withoutHands = "coco_000000000785"

    static func jpegPath(_ name: String) -> String {
        let media = CLI.shared.appendingPathComponent("media/images")
        return (name == "person-linda" ? media.appendingPathComponent("extra/person-linda.jpg") : media.appendingPathComponent(name + ".jpg")).path
    }

    /// The image as libjpeg decodes it (what MediaPipe's goldens saw).
    static func libjpegImage(_ name: String) throws -> RGBImage {
        var width: Int32 = 0, height: Int32 = 0
        var message = [CChar](repeating: 0, count: 256)
        let path = jpegPath(name)
        guard let pixels = posekit_libjpeg_decode(path, &width, &height, &message, message.count) else {
            throw HandsTestError("\(path): libjpeg could not decode it")
        }
        defer { free(pixels) }
        return RGBImage(width: Int(width), height: Int(height),
                        pixels: Array(UnsafeBufferPointer(start: pixels, count: Int(width) * Int(height) * 3)))
    }

    /// A folder of PPMs written from the libjpeg decode of `names` (`name.ppm`), made once.
    static let ppmFolder: URL = {
        let dir = try! CLI.temporaryDirectory()
        for name in withHands + [withoutHands] {
            try! Data(PPMWriter.encode(try! libjpegImage(name))).write(to: dir.appendingPathComponent(name + ".ppm"))
        }
        return dir
    }()

    static func ppm(_ name: String) -> String { ppmFolder.appendingPathComponent(name + ".ppm").path }

    struct Golden: Decodable {
        struct Landmark: Decodable { var x: Double, y: Double, z: Double }
        struct List: Decodable { var landmark: [Landmark] }
        struct Classification: Decodable { var label: String; var score: Double }
        struct Classifications: Decodable { var classification: [Classification] }
        var width: Int, height: Int
        var multi_hand_landmarks: [List]?
        var multi_hand_world_landmarks: [List]?
        var multi_handedness: [Classifications]?
    }

    static func golden(_ name: String, model: String) throws -> Golden {
        try JSONDecoder().decode(Golden.self, from: Data(contentsOf: pipelines.appendingPathComponent(name).appendingPathComponent("mp_hand_pipeline_\(model).json")))
    }

    static func lines(_ result: CLI.Result) throws -> [[String: Any]] {
        try result.lines.map { try #require(JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any]) }
    }

    static func hands(_ line: [String: Any]) throws -> [[String: Any]] { try #require(line["hands"] as? [[String: Any]]) }

    /// Every hand MediaPipe finds, in its order, with its handedness flipped (unless mirrored) and
    /// its 21 points within 0.1 px on average (2 px at most), z and world points alike.
    @Test(arguments: ["full", "lite"])
    func theCommandGivesMediaPipesHands(model: String) throws {
        let names = Self.withHands + [Self.withoutHands]
        let result = try CLI.run(["hands", "--hand-sources", "palms", "--hand-model", model] + names.map(Self.ppm))
        #expect(result.status == 0, "stderr: \(result.stderr)")
        let lines = try Self.lines(result)
        try #require(lines.count == names.count)
        var checked = 0, worst = 0.0
        for (name, line) in zip(names, lines) {
            let golden = try Self.golden(name, model: model)
            let hands = try Self.hands(line)
            let expected = golden.multi_hand_landmarks ?? []
            #expect(hands.count == expected.count, "\(name) \(model): \(hands.count) hands, MediaPipe \(expected.count)")
            #expect(line["width"] as? Int == golden.width && line["height"] as? Int == golden.height)
            for (i, (hand, theirs)) in zip(hands, expected).enumerated() {
                let label = try #require(golden.multi_handedness?[i].classification.first?.label)
                // MediaPipe's "Left" is the person's right hand in an unmirrored photo.
                #expect(hand["handedness"] as? String == (label == "Left" ? "right" : "left"), "\(name) hand \(i)")
                #expect(hand["id"] == nil, "no ids on a still image")
                let keypoints = try #require(hand["keypoints"] as? [[String: Any]])
                try #require(keypoints.count == 21)
                #expect(keypoints.map { $0["part"] as? String } == KeypointSet.hand21.names.map { Optional($0) })
                var sum = 0.0
                for (point, landmark) in zip(keypoints, theirs.landmark) {
                    let x = try #require(point["x"] as? Double), y = try #require(point["y"] as? Double), z = try #require(point["z"] as? Double)
                    let dx = x - landmark.x * Double(golden.width), dy = y - landmark.y * Double(golden.height)
                    let distance = (dx * dx + dy * dy).squareRoot()
                    sum += distance
                    worst = max(worst, distance)
                    #expect(abs(z - landmark.z * Double(golden.width)) <= 2, "\(name) hand \(i): z")
                }
                #expect(sum / 21 <= 0.1, "\(name) \(model) hand \(i): \(sum / 21) px from MediaPipe's on average")
                let world = try #require(hand["world"] as? [[String: Double]])
                let theirWorld = try #require(golden.multi_hand_world_landmarks?[i].landmark)
                #expect(world.count == 21)
                for (ours, their) in zip(world, theirWorld) {
                    // 4 decimals written (0.05 mm rounding); MediaPipe's own within 1 mm.
                    #expect(abs(ours["x"]! - their.x) <= 1e-3 && abs(ours["y"]! - their.y) <= 1e-3 && abs(ours["z"]! - their.z) <= 1e-3)
                }
                checked += 1
            }
        }
        #expect(worst <= 2)
        #expect(checked >= 4, "the reference images hold at least 4 hands MediaPipe finds (\(checked))")
    }

    /// --mirrored keeps MediaPipe's own label.
    @Test func mirroredKeepsMediaPipesLabel() throws {
        let name = "person-linda"
        let result = try CLI.run(["hands", "--hand-sources", "palms", "--mirrored", Self.ppm(name)])
        #expect(result.status == 0, "stderr: \(result.stderr)")
        let hands = try Self.hands(try #require(try Self.lines(result).first))
        let labels = try #require(try Self.golden(name, model: "full").multi_handedness).map { $0.classification[0].label.lowercased() }
        #expect(!labels.isEmpty && hands.map { $0["handedness"] as? String } == labels.map { Optional($0) })
    }

    /// The command writes what the library gives, byte for byte, in pixels and normalized.
    @Test(arguments: [KeypointCoordinates.pixels, .normalized])
    func theCommandWritesTheLibrarysBytes(coordinates: KeypointCoordinates) async throws {
        let paths = Self.withHands.map(Self.ppm)
        let result = try CLI.run(["hands", "--hand-sources", "palms", "--coordinates", coordinates.rawValue] + paths)
        #expect(result.status == 0, "stderr: \(result.stderr)")
        let detector = try Self.detector()
        var json = JSONText()
        for path in paths {
            for try await detected in detector.hands(inMediaAt: path) {
                HandJSONLinesEncoder.append(source: path, frame: detected.index, width: detected.width, height: detected.height,
                                            time: detected.time, hands: detected.hands, coordinates: coordinates, to: &json)
            }
        }
        #expect(Array(result.stdout) == json.bytes)
    }

    /// `pose --hands`: the hands `hands` finds, each in the person whose wrist is nearest (or in the
    /// frame's list), and the body exactly as without --hands.
    @Test func poseWithHandsGivesEachPersonTheirHands() throws {
        let path = Self.ppm("person-linda")
        let withHands = try CLI.run(["pose", "--hands", "--hand-sources", "palms", path])
        let plain = try CLI.run(["pose", path])
        let alone = try CLI.run(["hands", "--hand-sources", "palms", path])
        #expect(withHands.status == 0 && plain.status == 0 && alone.status == 0, "stderr: \(withHands.stderr)")
        #expect(!plain.stdoutText.contains("\"hands\""), "no hands field without --hands")
        var line = try #require(try Self.lines(withHands).first)
        let poses = try #require(line["poses"] as? [[String: Any]])
        let handsFound = try Self.hands(try #require(try Self.lines(alone).first))
        var assigned = 0
        var bodies: [[String: Any]] = []
        for pose in poses {
            let hands = try #require(pose["hands"] as? [[String: Any]])
            #expect(hands.count <= 2)
            let keypoints = try #require(pose["keypoints"] as? [[String: Any]])
            let wrists = keypoints.filter { ["leftWrist", "rightWrist"].contains($0["part"] as? String) && ($0["score"] as? Double ?? 0) >= 0.3 }
                .map { Point(x: $0["x"] as! Double, y: $0["y"] as! Double) }
            for hand in hands {
                let points = try Self.points(hand)
                let box = try #require(hand["box"] as? [Double])
                let size = max(box[2] - box[0], box[3] - box[1])
                #expect(wrists.contains { $0.squaredDistance(to: points[0]).squareRoot() <= size }, "a hand lies at its person's wrist")
                assigned += 1
            }
            var body = pose
            body["hands"] = nil
            bodies.append(body)
        }
        let leftOver = try Self.hands(line)
        #expect(assigned + leftOver.count == handsFound.count)
        #expect(assigned >= 1, "person-linda's hands are at her wrists")
        line["poses"] = bodies
        line["hands"] = nil
        let plainLine = try #require(try Self.lines(plain).first)
        #expect(NSDictionary(dictionary: line).isEqual(to: plainLine), "the body is as without --hands")
    }

    /// A shared clip as video: every frame a line with its time, every hand an id, the ids kept
    /// from frame to frame, and the library's bytes.
    @Test func videoHandsHaveIdsAndAreTheLibrarysBytes() async throws {
        let dir = try CLI.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let clip = dir.appendingPathComponent("clip.y4m")
        _ = try CLI.ffmpeg(["-i", Self.videoClip.path, "-frames:v", "\(Self.videoFrames)", "-f", "yuv4mpegpipe", clip.path])
        let result = try CLI.run(["hands", "--hand-sources", "palms", clip.path])
        #expect(result.status == 0, "stderr: \(result.stderr)")
        let lines = try Self.lines(result)
        #expect(lines.count == Self.videoFrames)
        var framesWithHands = 0, ids: [Int] = []
        for line in lines {
            #expect(line["time"] as? Double != nil)
            let hands = try Self.hands(line)
            if !hands.isEmpty { framesWithHands += 1 }
            for hand in hands { ids.append(try #require(hand["id"] as? Int, "every hand on video has an id")) }
        }
        #expect(framesWithHands * 2 >= Self.videoFrames, "hands in \(framesWithHands) of \(Self.videoFrames) frames")
        // Tracked: far fewer distinct ids than hands seen.
        #expect(Set(ids).count * 4 <= ids.count, "\(Set(ids).count) ids for \(ids.count) hands")
        var json = JSONText()
        for try await detected in try Self.detector().hands(inMediaAt: clip.path) {
            HandJSONLinesEncoder.append(source: clip.path, frame: detected.index, width: detected.width, height: detected.height,
                                        time: detected.time, hands: detected.hands, to: &json)
        }
        #expect(Array(result.stdout) == json.bytes)
    }

    static let videoClip = CLI.shared.appendingPathComponent("media/videos/409416541_Independent-Study__Push_Up.mp4")
    static let videoFrames = 24

    // MARK: Bad input: defined output, never a crash

    /// An image with no hand, a 1×1 image, a hand cut by the frame's edge and a hand upside down:
    /// each one line, exit 0, every number finite.
    @Test func badImagesGiveDefinedLines() throws {
        let dir = try CLI.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let image = try Self.libjpegImage("mpii_004645041")
        let golden = try Self.golden("mpii_004645041", model: "full")
        let wrist = try #require(golden.multi_hand_landmarks?.first?.landmark.first)
        // Cut at the first hand's wrist: the frame keeps what lies right of it.
        let cutX = Int(wrist.x * Double(image.width))
        try #require(cutX > 8 && cutX < image.width - 8)
        var cut = RGBImage(width: image.width - cutX, height: image.height)
        for y in 0..<image.height {
            for x in 0..<cut.width {
                for c in 0..<3 { cut.pixels[(y * cut.width + x) * 3 + c] = image.pixels[(y * image.width + x + cutX) * 3 + c] }
            }
        }
        let tiny = RGBImage(width: 1, height: 1, pixels: [200, 150, 120])
        let paths = [("cut", cut), ("tiny", tiny), ("upside-down", Self.rotatedHalfTurn(image))].map { name, picture in
            let url = dir.appendingPathComponent(name + ".ppm")
            try! Data(PPMWriter.encode(picture)).write(to: url)
            return url.path
        }
        let result = try CLI.run(["hands", "--hand-sources", "palms", "--max-hands", "20", Self.ppm(Self.withoutHands)] + paths)
        #expect(result.status == 0, "stderr: \(result.stderr)")
        let lines = try Self.lines(result)
        try #require(lines.count == 4)
        #expect(try Self.hands(lines[0]).isEmpty, "no hands in \(Self.withoutHands)")
        #expect(try Self.hands(lines[2]).isEmpty, "no hands in a 1×1 image")
        #expect(!result.stdoutText.contains("null"), "every number finite")
        for line in lines {
            for hand in try Self.hands(line) { #expect((hand["keypoints"] as? [Any])?.count == 21) }
        }
        // Turned half round, MediaPipe's rotated regions find the same hands at the turned places.
        let upright = try Self.hands(try #require(try Self.lines(try CLI.run(["hands", "--hand-sources", "palms", Self.ppm("mpii_004645041")])).first))
        let turned = try Self.hands(lines[3])
        #expect(turned.count == upright.count, "upside down: \(turned.count) hands, upright \(upright.count)")
        for hand in upright {
            let points = try Self.points(hand)
            let wristTurned = Point(x: Double(image.width - 1) - points[0].x, y: Double(image.height - 1) - points[0].y)
            let match = try turned.map { try Self.points($0) }.min { $0[0].squaredDistance(to: wristTurned) < $1[0].squaredDistance(to: wristTurned) }
            let other = try #require(match)
            var sum = 0.0
            for (a, b) in zip(points, other) {
                sum += Point(x: Double(image.width - 1) - a.x, y: Double(image.height - 1) - a.y).squaredDistance(to: b).squareRoot()
            }
            let box = try #require(hand["box"] as? [Double])
            // The model sees other pixels (the crop's sampling turned), so not the same digits: within 5 % of the hand's size.
            #expect(sum / 21 <= 0.05 * max(box[2] - box[0], box[3] - box[1]), "upside down: \(sum / 21) px from the turned points on average")
        }
    }

    static func points(_ hand: [String: Any]) throws -> [Point] {
        try (try #require(hand["keypoints"] as? [[String: Any]])).map { Point(x: try #require($0["x"] as? Double), y: try #require($0["y"] as? Double)) }
    }

    static func rotatedHalfTurn(_ image: RGBImage) -> RGBImage {
        var turned = RGBImage(width: image.width, height: image.height)
        let count = image.width * image.height
        for i in 0..<count {
            for c in 0..<3 { turned.pixels[(count - 1 - i) * 3 + c] = image.pixels[i * 3 + c] }
        }
        return turned
    }

    /// A landmark model returning NaN (with a hand flag that passes): no hand, no crash, no NaN out.
    @Test func aModelReturningNaNFindsNoHand() throws {
        let palms = try MediaPipeModelFile.graphModel("palm_detection_full")
        let detector = try HandDetector(palmDetector: palms, landmarker: NaNLandmarker())
        let image = try Self.libjpegImage("person-linda")
        #expect(try detector.hands(in: image).isEmpty)
        var tracking = HandTracking()
        for index in 0..<3 {
            let frame = VideoFrame(image: image, index: index, time: Double(index) / 30, isStillImage: false)
            #expect(try detector.hands(in: frame, tracking: &tracking).isEmpty)
            #expect(tracking.trackedHands == 0)
        }
        let nanPalms = try HandDetector(palmDetector: NaNLandmarker(outputs: [2016 * 18, 2016]), landmarker: NaNLandmarker())
        #expect(try nanPalms.hands(in: image).isEmpty)
    }

    /// An endless stream: one frame at a time, tracking bounded by the maximum hands.
    @Test func trackingStaysBoundedOnAnEndlessStream() async throws {
        let detector = try Self.detector()
        let image = try Self.libjpegImage("mpii_004645041")
        let frames = RepeatedFrames(image: image, count: 60)
        var maximumTracked = 0, withIDs = 0
        for try await detected in detector.hands(from: frames) {
            maximumTracked = max(maximumTracked, detected.hands.count)
            if !detected.hands.isEmpty && detected.hands.allSatisfy({ $0.id != nil }) { withIDs += 1 }
        }
        #expect(maximumTracked <= 2)
        #expect(withIDs == 60, "every frame's hands have ids (\(withIDs))")
    }

    /// Memory stays flat on a long stream: the command's peak resident memory (its own process,
    /// `/usr/bin/time`) on 80 frames of a PNM stream read as video is within 16 MiB of its peak on
    /// 20. (Measured in a child: the test process's own memory moves with the suites running beside it.)
    @Test func memoryStaysFlatOnALongStream() throws {
        let ppm = try Data(contentsOf: CLI.shared.appendingPathComponent("media/images/mpii_004645041.ppm"))
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("posekit-hands-memory-\(getpid())")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        var peaks: [Double] = []
        for count in [20, 80] {
            let stream = folder.appendingPathComponent("\(count).ppm")
            try Data((0..<count).flatMap { _ in ppm }).write(to: stream)
            let (result, peak) = try HostileInputRoundThreeTests.measured(["hands", "--video", "--threads", "1", "-"], stdinFile: stream)
            #expect(result.status == 0 && result.lines.count == count, "\(count) frames: \(result.status) \(result.stderr)")
            peaks.append(peak)
        }
        #expect(peaks[1] - peaks[0] < 16, "peak resident memory \(peaks[0]) MB on 20 frames, \(peaks[1]) MB on 80")
    }

    nonisolated(unsafe) static var shared: HandDetector?

    /// One full-model detector for the suite's library checks.
    static func detector() throws -> HandDetector {
        if let shared { return shared }
        shared = try HandDetector(configuration: HandDetector.Configuration(sources: .palms))
        return shared!
    }
}

struct HandsTestError: Error, CustomStringConvertible {
    var description: String
    init(_ description: String) { self.description = description }
}

/// A model whose every output is NaN (the hand landmark model's four outputs by default).
final class NaNLandmarker: MediaPipeModel {
    let counts: [Int]
    init(outputs counts: [Int] = [63, 1, 1, 63]) { self.counts = counts }
    func run(_ input: Tensor) throws -> [Tensor] {
        try counts.enumerated().map { index, count in
            // The flag and handedness pass (1 and 0.9) when there are four outputs: only the points are NaN.
            let value: Float = counts.count == 4 && (index == 1 || index == 2) ? (index == 1 ? 1 : 0.9) : .nan
            return try Tensor(shape: [1, count], values: [Float](repeating: value, count: count))
        }
    }
}

/// The same image `count` times as video frames (a stream that never changes).
struct RepeatedFrames: AsyncSequence, Sendable {
    typealias Element = VideoFrame
    let image: RGBImage
    let count: Int
    func makeAsyncIterator() -> Iterator { Iterator(image: image, count: count) }
    struct Iterator: AsyncIteratorProtocol {
        let image: RGBImage
        let count: Int
        var index = 0
        mutating func next() async throws -> VideoFrame? {
            guard index < count else { return nil }
            defer { index += 1 }
            return VideoFrame(image: image, index: index, time: Double(index) / 30, isStillImage: false)
        }
    }
}

/// The imported hand models from the checkout's Weights/ (as HandDetector loads them).
enum MediaPipeModelFile {
    static func graphModel(_ name: String) throws -> GraphModel {
        try GraphModel(graph: try Graph(bundle: try WeightBundle(contentsOf: try ModelLocator.resolve(name))))
    }
}
