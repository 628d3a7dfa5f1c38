import Foundation
import PoseKit
import Testing

/// Hands found through the body on the held-out photos (`media/images-val`, never used to choose a
/// setting: docs/hands.md, "Accuracy"), scored as `scripts/hands-accuracy.py` scores them: a hand is
/// found at a visible labelled wrist when its wrist landmark lies within 0.5 ground-truth forearm
/// lengths of it; the cumulative curve counts, over every visible wrist, those found with wrist
/// error ≤ t forearm (a missed wrist is not found at any t). MediaPipe Hands is `.palms` (MediaPipe's
/// pipeline exactly: `HandsCommandTests` holds it to MediaPipe's goldens).
@Suite(.serialized) struct BodySeededHandAccuracyTests {
    static let folder = CLI.shared.appendingPathComponent("media/images-val")
    static let thresholds: [Double] = [0.1, 0.2, 0.3, 0.4, 0.5]

    struct GroundTruth: Decodable {
        struct Image: Decodable {
            var id: Int
            var ppm_file: String
            var all_visible_people_annotated: Bool?
        }
        struct Annotation: Decodable { var image_id: Int; var keypoints: [Double] }
        var images: [Image]
        var annotations: [Annotation]
    }

    struct Score: Equatable, CustomStringConvertible {
        /// Visible labelled wrists found with wrist error ≤ each of `thresholds`.
        var within: [Int]
        var visible: Int
        var falseHands: Int
        var description: String { "within \(within) of \(visible) visible wrists, \(falseHands) false" }
    }

    /// `hands-accuracy.py`'s `score_wrists`: each predicted hand in order claims the nearest unclaimed
    /// labelled wrist (with its elbow) within 0.5 forearm; a hand at none is false where every
    /// visible person is labelled.
    static func score(_ handsPerImage: [Int: [SIMD2<Double>]], _ truth: GroundTruth) -> Score {
        var within = [Int](repeating: 0, count: thresholds.count), visible = 0, falseHands = 0
        for image in truth.images {
            var targets: [(wrist: SIMD2<Double>, visible: Bool, forearm: Double)] = []
            for person in truth.annotations where person.image_id == image.id {
                let k = person.keypoints
                for (wrist, elbow) in [(9, 7), (10, 8)] {
                    let w = SIMD2(k[3 * wrist], k[3 * wrist + 1]), e = SIMD2(k[3 * elbow], k[3 * elbow + 1])
                    if k[3 * wrist + 2] > 0, k[3 * elbow + 2] > 0 {
                        let d = w - e
                        targets.append((w, k[3 * wrist + 2] == 2, (d * d).sum().squareRoot()))
                    }
                    if k[3 * wrist + 2] == 2, k[3 * elbow + 2] > 0 { visible += 1 }
                }
            }
            var claimed = Set<Int>()
            for hand in handsPerImage[image.id] ?? [] {
                var best: (error: Double, target: Int)?
                for (t, target) in targets.enumerated() where !claimed.contains(t) {
                    let d = hand - target.wrist
                    let error = (d * d).sum().squareRoot() / max(target.forearm, 1e-6)
                    if error <= 0.5, best == nil || error < best!.error { best = (error, t) }
                }
                guard let best else {
                    if image.all_visible_people_annotated ?? true { falseHands += 1 }
                    continue
                }
                claimed.insert(best.target)
                if targets[best.target].visible {
                    for (i, t) in thresholds.enumerated() where best.error <= t { within[i] += 1 }
                }
            }
        }
        return Score(within: within, visible: visible, falseHands: falseHands)
    }

    /// Every image's hands' wrists (pixels) as `posekit hands --max-hands 4` finds them: the default
    /// sources (`palms+body`) when `throughBody`, else MediaPipe's (`palms`).
    static func wrists(throughBody: Bool, _ truth: GroundTruth) throws -> [Int: [SIMD2<Double>]] {
        let configuration = HandDetector.Configuration(maximumHands: 4, sources: throughBody ? .palmsAndBody : .palms)
        let detector = try HandDetector(configuration: configuration)
        var result: [Int: [SIMD2<Double>]] = [:]
        for image in truth.images {
            let hands = try detector.hands(inImageAtPath: folder.appendingPathComponent(image.ppm_file).path)
            result[image.id] = hands.map { SIMD2($0.pose.keypoints[0].position.x, $0.pose.keypoints[0].position.y) }
        }
        return result
    }

    /// The default finds more wrists than MediaPipe Hands within every t (more hands, and more hands
    /// placed well), and no fewer than measured when the rule was chosen (docs/hands.md): a change
    /// that places body-seeded hands worse, or loses them, fails here.
    @Test func heldOutCurveBeatsMediaPipeAtEveryThreshold() throws {
        let truth = try JSONDecoder().decode(GroundTruth.self,
                                             from: Data(contentsOf: Self.folder.appendingPathComponent("ground_truth.json")))
        let mediaPipe = Self.score(try Self.wrists(throughBody: false, truth), truth)
        let found = Self.score(try Self.wrists(throughBody: true, truth), truth)
        // MediaPipe Hands on images-val (mediapipe_peer.py, docs/hands.md): 6 and 8 of 29 wrists.
        #expect(mediaPipe == Score(within: [6, 8, 8, 8, 8], visible: 29, falseHands: 0))
        for i in Self.thresholds.indices {
            #expect(found.within[i] > mediaPipe.within[i], "t = \(Self.thresholds[i]): \(found) against MediaPipe's \(mediaPipe)")
        }
        #expect(zip(found.within, Self.measured.within).allSatisfy { $0 >= $1 }, "\(found), measured \(Self.measured)")
        #expect(found.falseHands <= Self.measured.falseHands, "\(found), measured \(Self.measured)")
    }

    /// What the default measures on images-val (docs/hands.md, "Accuracy"): [8, 13, ...] when the
    /// seeding rule was chosen; one wrist fewer since a hand belongs to one person and side
    /// (`HandOwnership`, wave 7: one hand per side per person, the same hand found twice kept once).
    static let measured = Score(within: [7, 12, 12, 12, 12], visible: 29, falseHands: 3)
}
