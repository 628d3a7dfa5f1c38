import Foundation
import Testing
import PoseCore

/// Tracking, smoothing and JSON Lines on poses of 33 and 21 points, as on PoseNet's 17.
@Suite struct KeypointSetStreamTests {
    /// A deterministic jitter in -1...1 (a fixed linear congruential sequence).
    struct Jitter {
        var state: UInt64
        mutating func next() -> Double {
            state = state &* 6364136223846793005 &+ 1442695040888963407
            return Double(state >> 11) / Double(1 << 53) * 2 - 1
        }
    }

    /// A `set` pose laid out on a grid of `size` pixels with its top-left at `origin`, every
    /// point moved by up to `noise` pixels: its true positions and the noisy pose.
    static func person(_ set: KeypointSet, origin: Point, size: Double, noise: Double, jitter: inout Jitter)
        -> (truth: [Point], pose: Pose) {
        let columns = Int(Double(set.count).squareRoot().rounded(.up))
        let truth = (0..<set.count).map { i in
            Point(x: origin.x + Double(i % columns) * size / Double(columns), y: origin.y + Double(i / columns) * size / Double(columns))
        }
        let noisy = truth.map { Point(x: $0.x + noise * jitter.next(), y: $0.y + noise * jitter.next()) }
        return (truth, Pose(keypointSet: set, points: noisy, scores: Array(repeating: 0.9, count: set.count)))
    }

    static func rootMeanSquare(_ a: [Point], _ b: [Point]) -> Double {
        (zip(a, b).map { $0.squaredDistance(to: $1) }.reduce(0, +) / Double(a.count)).squareRoot()
    }

    /// Two BlazePose people walking, and a hand held in front of the first: three identities
    /// for two seconds at 30 frames/s, each pose keeping its set and count; smoothing brings the
    /// noisy points nearer their true path.
    @Test func bodiesOf33AndAHandOf21KeepTheirIdentitiesAndAreSmoothed() throws {
        var stream = try PoseStream(configuration: PoseStream.Configuration(smoothing: true))
        var raw = Jitter(state: 7)
        var ids: [[Int]] = []
        var rawError = 0.0, smoothedError = 0.0
        for frame in 0..<60 {
            let t = Double(frame) / 30
            let a = Self.person(.blazePose33, origin: Point(x: 100 + 30 * t, y: 50), size: 200, noise: 4, jitter: &raw)
            let b = Self.person(.blazePose33, origin: Point(x: 500 - 20 * t, y: 60), size: 180, noise: 4, jitter: &raw)
            let hand = Self.person(.hand21, origin: Point(x: 150 + 30 * t, y: 120), size: 60, noise: 1, jitter: &raw)
            let tracked = stream.process([a.pose, b.pose, hand.pose], frameIndex: frame, time: t)
            #expect(tracked.map(\.pose.keypointSet) == [.blazePose33, .blazePose33, .hand21], "frame \(frame)")
            #expect(tracked.map(\.pose.keypoints.count) == [33, 33, 21])
            ids.append(tracked.map(\.trackID))
            if frame >= 20, tracked.count == 3 {   // once the filters have settled
                for (given, truth) in [(a.pose, a.truth), (b.pose, b.truth), (hand.pose, hand.truth)] {
                    rawError += Self.rootMeanSquare(given.keypoints.map(\.position), truth)
                }
                for (k, truth) in zip(tracked, [a.truth, b.truth, hand.truth]) {
                    smoothedError += Self.rootMeanSquare(k.pose.keypoints.map(\.position), truth)
                }
            }
        }
        // IDs go by first appearance, best score first (the hand's mean score is a rounding above the bodies').
        #expect(Set(ids[0]) == [1, 2, 3] && ids.allSatisfy { $0 == ids[0] }, "\(Set(ids.map { "\($0)" }))")
        #expect(smoothedError < 0.7 * rawError, "smoothed \(smoothedError) raw \(rawError)")
    }

    /// A pose line of each set written and read back: the reader finds the set from the names,
    /// visibility survives, and an incomplete BlazePose pose names what it lacks.
    @Test func jsonLinesCarryEverySet() throws {
        var jitter = Jitter(state: 3)
        var body = Self.person(.blazePose33, origin: Point(x: 10, y: 20), size: 300, noise: 0, jitter: &jitter).pose
        for i in body.keypoints.indices { body.keypoints[i].visibility = Double(i) / 40 }
        let hand = Self.person(.hand21, origin: Point(x: 5, y: 5), size: 50, noise: 0, jitter: &jitter).pose
        let vision = Self.person(.vision18, origin: Point(x: 15, y: 5), size: 90, noise: 0, jitter: &jitter).pose
        var json = JSONText()
        PoseJSONLinesEncoder.append(source: "a", frame: 0, width: 640, height: 480, time: nil, poses: [body, hand, vision], to: &json)
        let text = json.text
        #expect(text.contains(#"{"part": "leftHeel", "x": 260, "y": 220, "score": 0.9, "visibility": 0.725}"#), "\(text)")
        #expect(text.contains(#"{"part": "littleTip", "x": 5, "y": 45, "score": 0.9}"#))
        let frame = try #require(try PoseJSONLinesDecoder.decodeAll(text).first)
        #expect(frame.poses.map(\.keypointSet) == [.blazePose33, .hand21, .vision18])
        #expect(frame.poses[0].keypoints == body.keypoints && frame.poses[1].keypoints == hand.keypoints
                && frame.poses[2].keypoints == vision.keypoints)

        let lacking = text.replacingOccurrences(of: #"{"part": "leftHeel", "x": 260, "y": 220, "score": 0.9, "visibility": 0.725}, "#, with: "")
        #expect(throws: PoseDataError.malformedPoses(line: 1, reason: "pose 0 lacks 1 of 33 keypoints (first: leftHeel)")) {
            _ = try PoseJSONLinesDecoder.decodeAll(lacking)
        }
        let mixed = text.replacingOccurrences(of: #""part": "leftHeel""#, with: #""part": "thumbTip""#)
        #expect(throws: PoseDataError.malformedPoses(line: 1, reason: "pose 0: no known keypoint set (coco17, blazePose33, hand21, vision18) has all of its parts")) {
            _ = try PoseJSONLinesDecoder.decodeAll(mixed)
        }
    }

    /// What BlazePose adds to a keypoint (`z`, `presence`) and to a pose (`world`, metres) reads
    /// back as written, from pixel and from normalized lines (where `z` is a fraction of the
    /// width); a `world` of the wrong length or with a non-number is refused with its reason.
    @Test func depthPresenceAndWorldPointsReadBack() throws {
        var jitter = Jitter(state: 5)
        var body = Self.person(.blazePose33, origin: Point(x: 64, y: 32), size: 320, noise: 0, jitter: &jitter).pose
        for i in body.keypoints.indices {
            body.keypoints[i].z = 6.4 * Double(i) - 100    // exact in pixels and as a fraction of 640
            body.keypoints[i].presence = Double(i) / 40
            body.keypoints[i].visibility = Double(40 - i) / 40
        }
        body.world = body.keypoints.indices.map { WorldPoint(x: Double($0) / 100, y: -0.5, z: Double($0 % 7) / 10) }
        for coordinates in [KeypointCoordinates.pixels, .normalized] {
            var json = JSONText()
            PoseJSONLinesEncoder.append(source: "a", frame: 0, width: 640, height: 480, time: nil, poses: [body],
                                        coordinates: coordinates, to: &json)
            let read = try #require(try PoseJSONLinesDecoder.decodeAll(json.text).first?.poses.first)
            for (got, want) in zip(read.keypoints, body.keypoints) {
                #expect(abs(got.z! - want.z!) < 1e-9 && got.presence == want.presence && got.visibility == want.visibility,
                        "\(coordinates): \(got) vs \(want)")
            }
            #expect(read.world == body.world, "\(coordinates)")
        }
        var json = JSONText()
        PoseJSONLinesEncoder.append(source: "a", frame: 0, width: 640, height: 480, time: nil, poses: [body], to: &json)
        let shortWorld = json.text.replacingOccurrences(of: #"{"x": 0, "y": -0.5, "z": 0}, "#, with: "")
        #expect(throws: PoseDataError.malformedPoses(line: 1, reason: "pose 0: \"world\" must list 33 points, one per keypoint")) {
            _ = try PoseJSONLinesDecoder.decodeAll(shortWorld)
        }
        let textWorld = json.text.replacingOccurrences(of: #"{"x": 0, "y": -0.5, "z": 0}"#, with: #"{"x": "0", "y": -0.5, "z": 0}"#)
        #expect(throws: PoseDataError.malformedPoses(line: 1, reason: "pose 0: world point 0 needs finite numeric \"x\", \"y\" and \"z\" within 1e4 metres")) {
            _ = try PoseJSONLinesDecoder.decodeAll(textWorld)
        }
    }
}
