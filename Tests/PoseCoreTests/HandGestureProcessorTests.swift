import Foundation
import Testing
import PoseCore

/// The pinch gesture against hand-checked fixtures: recorded sequences built on a real hand's
/// labelled 21 points (`shared/media/hands`, FreiHAND 00017620, palm ≈ 63 px) with the thumb tip
/// placed at scripted distances from the index tip, the sample's state table worked out by hand
/// for each; and the real labelled hands of `media/hands`, pinching and apart.
@Suite struct HandGestureProcessorTests {
    typealias State = HandGestureProcessor.State

    /// The labelled hands of `media/hands` (file name → 21 points in MediaPipe's order).
    static let labelledHands: [String: [Point]] = {
        let url = KeypointSetTests.shared.appendingPathComponent("media/hands/ground_truth.json")
        guard let data = try? Data(contentsOf: url),
              let json = try? JSONSerialization.jsonObject(with: data) as? [String: Any],
              let images = json["images"] as? [[String: Any]], let annotations = json["annotations"] as? [[String: Any]]
        else { return [:] }
        var names: [Int: String] = [:]
        for image in images { names[image["id"] as! Int] = image["file_name"] as? String }
        var hands: [String: [Point]] = [:]
        for annotation in annotations {
            let values = (annotation["keypoints"] as! [NSNumber]).map(\.doubleValue)
            hands[names[annotation["image_id"] as! Int]!] = (0..<21).map { Point(x: values[3 * $0], y: values[3 * $0 + 1]) }
        }
        return hands
    }()

    /// A hand21 pose of `points`, every point scoring `score`.
    static func hand(_ points: [Point], score: Double = 0.9) -> Pose {
        Pose(keypointSet: .hand21, points: points, scores: Array(repeating: score, count: 21))
    }

    /// The reference hand with its thumb tip `distance` hand sizes from the index tip (to the index
    /// tip's left), scaled by `scale` about the origin.
    static func frame(distance: Double, scale: Double = 1) throws -> Pose {
        var points = try #require(labelledHands["freihand_00017620.jpg"])
        let size = try #require(HandGestureProcessor.handSize(of: hand(points)))
        points[4] = Point(x: points[8].x - distance * size, y: points[8].y)
        return hand(points.map { Point(x: $0.x * scale, y: $0.y * scale) })
    }

    /// Runs `distances` (nil: no hand) at 30 frames/s.
    static func run(_ distances: [Double?], scale: Double = 1, processor: inout HandGestureProcessor,
                    start: Double = 0) throws -> [HandGestureProcessor.Update] {
        try distances.enumerated().map { i, d in
            try processor.process(hand: d.map { try frame(distance: $0, scale: scale) }, time: start + Double(i) / 30)
        }
    }

    @Test func handSizeIsThePalmsLongestSide() throws {
        let points = try #require(Self.labelledHands["freihand_00017620.jpg"])
        // Measured by hand from the labels: wrist–middle MCP 62.7 px is the longest of the four sides.
        let size = try #require(HandGestureProcessor.handSize(of: Self.hand(points)))
        #expect(abs(size - 62.7) < 0.05)
        #expect(HandGestureProcessor.handSize(of: Pose(keypoints: Array(repeating: Keypoint(position: Point(x: 0, y: 0), score: 1), count: 17),
                                                       score: 1)) == nil)
    }

    @Test func pinchThenRelease() throws {
        var processor = HandGestureProcessor()
        let updates = try Self.run([0.9, 0.9, 0.9, 0.2, 0.2, 0.2, 0.2, 0.9, 0.9, 0.9], processor: &processor)
        let expected: [State] = [.possibleApart, .possibleApart, .apart, .possiblePinch, .possiblePinch, .pinched, .pinched,
                                 .possibleApart, .possibleApart, .apart]
        #expect(updates.map(\.state) == expected)
        // The two undecided frames' midpoints are delivered with the third when the pinch is decided.
        #expect(updates.map(\.pathPoints.count) == [0, 0, 0, 0, 0, 3, 1, 0, 0, 0])
        #expect(updates.map(\.strokeEnded) == [false, false, false, false, false, false, false, false, false, true])
        let pinch = try Self.frame(distance: 0.2)
        let midpoint = Point(x: (pinch.keypoints[4].position.x + pinch.keypoints[8].position.x) / 2,
                             y: (pinch.keypoints[4].position.y + pinch.keypoints[8].position.y) / 2)
        #expect(updates[5].pathPoints == [midpoint, midpoint, midpoint])
        #expect(abs(updates[3].distance! - 0.2) < 1e-9)
        #expect(updates[5].stateChanged && !updates[6].stateChanged)
    }

    @Test func theSameAtAnyResolution() throws {
        let distances: [Double?] = [0.9, 0.3, 0.3, 0.3, 0.6, 0.6, 0.6]
        var small = HandGestureProcessor(), large = HandGestureProcessor(), original = HandGestureProcessor()
        let a = try Self.run(distances, scale: 0.1, processor: &small).map(\.state)
        let b = try Self.run(distances, scale: 8, processor: &large).map(\.state)
        let c = try Self.run(distances, processor: &original).map(\.state)
        #expect(a == c && b == c)
        #expect(c == [.possibleApart, .possiblePinch, .possiblePinch, .pinched, .possibleApart, .possibleApart, .apart])
    }

    @Test func jitterAroundTheThresholdDecidesNothing() throws {
        var processor = HandGestureProcessor()
        let jitter = (0..<200).map { Double?($0 % 2 == 0 ? 0.48 : 0.52) }
        let updates = try Self.run(jitter, processor: &processor)
        #expect(updates.allSatisfy { $0.state == .possiblePinch || $0.state == .possibleApart })
        #expect(updates.allSatisfy { $0.pathPoints.isEmpty && !$0.strokeEnded })
        // Two frames on one side then three: decided, and the buffer delivered is bounded.
        let settle = try Self.run([0.48, 0.48, 0.48], processor: &processor, start: 10)
        #expect(settle.map(\.state) == [.possiblePinch, .possiblePinch, .pinched])
        #expect(settle[2].pathPoints.count == processor.configuration.maximumBufferedPoints + 1)
    }

    @Test func aLostHandWaitsTwoSecondsThenStartsOver() throws {
        var processor = HandGestureProcessor()
        _ = try Self.run([0.1, 0.1, 0.1], processor: &processor)
        #expect(processor.state == .pinched)
        // 1 s without a hand: nothing counted, the state held (the sample keeps it for 2 s).
        let gap = try Self.run(Array(repeating: nil, count: 30), processor: &processor, start: 0.1)
        #expect(gap.allSatisfy { $0.state == .pinched && $0.tips == nil && $0.pathPoints.isEmpty && !$0.strokeEnded })
        // Back within 2 s: the pinch goes on.
        let back = try processor.process(hand: Self.frame(distance: 0.1), time: 1.5)
        #expect(back.state == .pinched && back.pathPoints.count == 1)
        // Gone for more than 2 s: reset, the stroke ends once.
        let lost = try Self.run([nil, nil], processor: &processor, start: 3.6)
        #expect(lost.map(\.state) == [.unknown, .unknown])
        #expect(lost.map(\.strokeEnded) == [true, false])
        // Tips scoring 0.3 or less (the sample's rule) are as good as no hand.
        var unsure = HandGestureProcessor()
        let low = try Self.frame(distance: 0.1)
        var lowScores = low
        lowScores.keypoints[4].score = 0.3
        #expect(unsure.process(hand: lowScores, time: 0).tips == nil)
        #expect(unsure.process(hand: low, time: 0.1).state == .possiblePinch)
    }

    @Test func notANumberIsNoHand() throws {
        var processor = HandGestureProcessor()
        var broken = try Self.frame(distance: 0.1)
        broken.keypoints[8].position.x = .nan
        let update = processor.process(hand: broken, time: 0)
        #expect(update.tips == nil && update.state == .unknown)
    }

    /// Real labelled hands: the ones whose thumb and index tips touch or nearly touch (CMU Panoptic
    /// `ex2_2…_l`, fingers curled on the thumb; `005880453_01_l`, on a cello's neck) pinch, the open
    /// ones (`005880453_01_r`, thumb raised; `ex2_2…_r`, spread) do not, each held for three frames.
    @Test func realHands() throws {
        let cases: [(String, State)] = [
            ("panoptic_ex2_2.flv_000040_l.jpg", .pinched), ("panoptic_005880453_01_l.jpg", .pinched),
            ("panoptic_005880453_01_r.jpg", .apart), ("panoptic_ex2_2.flv_000040_r.jpg", .apart),
        ]
        for (name, expected) in cases {
            let points = try #require(Self.labelledHands[name])
            var processor = HandGestureProcessor()
            let states = (0..<3).map { processor.process(hand: Self.hand(points), time: Double($0) / 30).state }
            #expect(states.last == expected, "\(name)")
        }
    }
}
