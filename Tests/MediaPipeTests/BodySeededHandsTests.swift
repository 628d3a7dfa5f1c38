import Foundation
import FrameIO
import Testing
@testable import MediaPipe

/// Hands found through the body: the region rules against hand-computed cases, `.palms` against
/// MediaPipe's pipeline as it is, and real photos where MediaPipe's palm detector finds no hand but
/// the labelled wrists and elbows (`media/images` ground truth, independent of any body model)
/// lead the landmark model to hands at those wrists.
@Suite(.serialized) struct BodySeededHandsTests {
    /// The labelled (wrist, elbow) pairs of an image of `media/images`, both visible (v = 2), in pixels.
    static func labelledForearms(_ file: String) throws -> [(wrist: SIMD2<Float>, elbow: SIMD2<Float>)] {
        let url = sharedFolder().appendingPathComponent("media/images/ground_truth.json")
        let json = try #require(try JSONSerialization.jsonObject(with: Data(contentsOf: url)) as? [String: Any])
        let images = try #require(json["images"] as? [[String: Any]])
        let id = try #require(images.first { $0["file_name"] as? String == file + ".jpg" }?["id"] as? Int)
        var pairs: [(wrist: SIMD2<Float>, elbow: SIMD2<Float>)] = []
        for annotation in try #require(json["annotations"] as? [[String: Any]]) where annotation["image_id"] as? Int == id {
            let k = (annotation["keypoints"] as! [NSNumber]).map(\.floatValue)
            for (wrist, elbow) in [(9, 7), (10, 8)] where k[3 * wrist + 2] == 2 && k[3 * elbow + 2] == 2 {
                pairs.append((SIMD2(k[3 * wrist], k[3 * wrist + 1]), SIMD2(k[3 * elbow], k[3 * elbow + 1])))
            }
        }
        return pairs
    }

    @Test func forearmRegion() throws {
        let size = ImageSize(width: 400, height: 200)
        let rule = HandRegionFromBody(forearmCentre: 0.3, forearmSide: 1.2)
        // Forearm pointing up (elbow below the wrist): no rotation, centre 0.3 forearm above the wrist.
        let up = try #require(rule.region(BodyHandSeed(wrist: SIMD2(100, 100), elbow: SIMD2(100, 200), score: 1), imageSize: size))
        #expect(abs(up.xCenter - 100 / 400) < 1e-6 && abs(up.yCenter - 70 / 200) < 1e-6)
        #expect(abs(up.width - 120 / 400) < 1e-6 && abs(up.height - 120 / 200) < 1e-6 && abs(up.rotation) < 1e-6)
        // Pointing right: the crop turned a quarter clockwise so the hand points up in it (MediaPipe's rule).
        let right = try #require(rule.region(BodyHandSeed(wrist: SIMD2(200, 100), elbow: SIMD2(100, 100), score: 1), imageSize: size))
        #expect(abs(right.xCenter - 230 / 400) < 1e-6 && abs(right.yCenter - 0.5) < 1e-6)
        #expect(abs(right.rotation - Float.pi / 2) < 1e-6)
        // Holistic's rule for BlazePose's hand points: middle = (2·index + pinky)/3, side 2·|middle − wrist|·scale.
        var holistic = HandRegionFromBody()
        holistic.blazePoseScale = 1.5
        let seed = BodyHandSeed(wrist: SIMD2(100, 100), elbow: SIMD2(100, 200), index: SIMD2(110, 50), pinky: SIMD2(80, 50), score: 1)
        let hand = try #require(holistic.region(seed, imageSize: size))
        #expect(abs(hand.xCenter - 100 / 400) < 1e-6 && abs(hand.yCenter - 50 / 200) < 1e-6)
        #expect(abs(hand.width - 150 / 400) < 1e-6 && abs(hand.rotation) < 1e-6)
        #expect(seed.scaleLength == 100)
        // No direction, or not finite: no region.
        #expect(rule.region(BodyHandSeed(wrist: SIMD2(100, 100), elbow: SIMD2(100, 100), score: 1), imageSize: size) == nil)
        #expect(rule.region(BodyHandSeed(wrist: SIMD2(.nan, 100), elbow: SIMD2(100, 0), score: 1), imageSize: size) == nil)
        #expect(rule.region(BodyHandSeed(wrist: SIMD2(100, 100), score: 1), imageSize: size) == nil)
        #expect(rule.region(BodyHandSeed(wrist: SIMD2(100, 100), elbow: SIMD2(0, 0), score: 1), imageSize: ImageSize(width: 0, height: 0)) == nil)
    }

    @Test func palmsIsMediaPipesPipelineExactly() throws {
        let pipeline = try MediaPipeModels.hands("full")
        let image = try MediaPipeReference.image("mpii_004645041")
        let seeds = try Self.labelledForearms("mpii_004645041").map { BodyHandSeed(wrist: $0.wrist, elbow: $0.elbow, score: 1) }
        let alone = try pipeline.process(image)
        #expect(!alone.hands.isEmpty)
        #expect(try pipeline.process(image, sources: .palms, bodySeeds: seeds) == alone)
        // With the body: the palm hands first and unchanged; the seed at the palm hand's wrist is not read again.
        let both = try pipeline.process(image, sources: .palmsAndBody, bodySeeds: seeds)
        #expect(Array(both.hands.prefix(alone.hands.count)) == alone.hands)
        #expect(both.hands.count <= pipeline.configuration.maximumHands)
        #expect(both.hands.dropFirst(alone.hands.count).allSatisfy { $0.bodySeed != nil })
    }

    @Test func bodySeedsFindHandsThePalmDetectorMisses() throws {
        let pipeline = try MediaPipeModels.hands("full")
        let name = "mpii_005808361"
        let image = try MediaPipeReference.image(name)
        let forearms = try Self.labelledForearms(name)
        #expect(try pipeline.process(image).hands.isEmpty)   // MediaPipe finds none (its goldens agree)
        let seeds = forearms.map { BodyHandSeed(wrist: $0.wrist, elbow: $0.elbow, score: 1) }
        let result = try pipeline.process(image, sources: .body, bodySeeds: seeds)
        #expect(!result.palmDetectorRan && !result.hands.isEmpty)
        for hand in result.hands {
            #expect(hand.bodySeed != nil)
            let wrist = SIMD2(hand.landmarks[0].x * Float(image.width), hand.landmarks[0].y * Float(image.height))
            // Each hand is at a labelled wrist: within the acceptance distance of one.
            let near = forearms.contains { pair in
                let d = wrist - pair.wrist, forearm = pair.wrist - pair.elbow
                return (d * d).sum().squareRoot() <= BodySeeding().maximumWristDistance * (forearm * forearm).sum().squareRoot()
            }
            #expect(near)
        }
        // The same seed twice gives one hand (duplicates dropped by overlap).
        let twice = try pipeline.process(image, sources: .body, bodySeeds: [seeds[0], seeds[0]])
        #expect(twice.hands.count <= 1)
        // Seeds the body model does not vouch for are not read; nonsense seeds find nothing and do not crash.
        let weak = seeds.map { BodyHandSeed(wrist: $0.wrist, elbow: $0.elbow, score: 0.01) }
        #expect(try pipeline.process(image, sources: .body, bodySeeds: weak).hands.isEmpty)
        let nonsense = [BodyHandSeed(wrist: SIMD2(.nan, 1), elbow: SIMD2(0, 0), score: 1),
                        BodyHandSeed(wrist: SIMD2(5, 5), elbow: SIMD2(5, 5), score: 1),
                        BodyHandSeed(wrist: SIMD2(1e30, -1e30), elbow: SIMD2(0, 0), score: 1)]
        _ = try pipeline.process(image, sources: .palmsAndBody, bodySeeds: nonsense)
        let tiny = RGBImage(width: 1, height: 1, pixels: [0, 0, 0])
        _ = try pipeline.process(tiny, sources: .palmsAndBody, bodySeeds: [BodyHandSeed(wrist: SIMD2(0, 0), elbow: SIMD2(0, 1), score: 1)])
    }
}
