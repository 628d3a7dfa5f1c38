import Foundation
import MediaPipe
import PoseCore
import Testing

/// Another body model's person → the region BlazePose reads them in (`BlazePoseRegionFromPose`, docs/blazepose.md
/// "Everyone in the frame"), on poses whose regions are worked out by hand.
@Suite struct BlazePoseRegionFromPoseTests {
    /// An upright COCO-17 person in a 400 × 400 image: hips (180, 200) and (220, 200), shoulders 80 px above them,
    /// ankles (190, 360) and (210, 360) the farthest points from the hip centre (√(10² + 160²) = 160.312 px).
    static func upright(score: Double = 0.8, keypointScore: Double = 0.9) -> Pose {
        let points: [(Double, Double)] = [(200, 60), (195, 55), (205, 55), (190, 60), (210, 60),   // nose, eyes, ears
                                          (180, 120), (220, 120), (170, 160), (230, 160),          // shoulders, elbows
                                          (165, 200), (235, 200), (180, 200), (220, 200),          // wrists, hips
                                          (185, 280), (215, 280), (190, 360), (210, 360)]          // knees, ankles
        return Pose(keypoints: points.map { Keypoint(position: Point(x: $0.0, y: $0.1), score: keypointScore) }, score: score)
    }

    static let size = ImageSize(width: 400, height: 400)

    @Test func anUprightPersonsRegionIsMediaPipesRuleFromTheHipsAndTheFarthestPoint() throws {
        let rule = BlazePoseRegionFromPose()
        let region = try #require(rule.region(Self.upright(), imageSize: Self.size))
        // Centre: the hips' middle; side: 2 × 1.1 × 160.312 × 1.25 = 440.86 px; upright.
        let farthest: Double = (10.0 * 10.0 + 160.0 * 160.0).squareRoot()
        let side: Double = 2.0 * 1.1 * farthest * 1.25
        let x = Double(region.xCenter), y = Double(region.yCenter)
        let width = Double(region.width) * 400.0, height = Double(region.height) * 400.0
        #expect(abs(x - 0.5) < 1e-5 && abs(y - 0.5) < 1e-5)
        #expect(abs(width - side) < 1e-2 && abs(height - side) < 1e-2, "\(region)")
        #expect(abs(region.rotation) < 1e-5)
    }

    @Test func aPersonLyingWithTheHeadToTheRightIsTurnedAQuarter() throws {
        // The upright person turned 90° clockwise about the hip centre (x, y) → (200 + (200 − y), 200 + (x − 200)).
        var pose = Self.upright()
        for k in pose.keypoints.indices {
            let p = pose.keypoints[k].position
            pose.keypoints[k].position = Point(x: 400 - p.y, y: p.x)
        }
        let region = try #require(BlazePoseRegionFromPose().region(pose, imageSize: Self.size))
        // Up (hips → shoulders) now points right: MediaPipe's rotation π/2 − atan2(0, 1) = π/2.
        #expect(abs(Double(region.rotation) - Double.pi / 2) < 1e-4, "\(region.rotation)")
    }

    @Test func faintPosesAndTooFewPointsGiveNoRegion() {
        let rule = BlazePoseRegionFromPose()
        #expect(rule.region(Self.upright(score: 0.1), imageSize: Self.size) == nil)
        var fewer = Self.upright()
        for k in 4..<17 { fewer.keypoints[k].score = 0.1 }   // 4 confident points, 5 needed
        #expect(rule.region(fewer, imageSize: Self.size) == nil)
        var broken = Self.upright()
        for k in broken.keypoints.indices { broken.keypoints[k].position = Point(x: .nan, y: .nan) }
        #expect(rule.region(broken, imageSize: Self.size) == nil)
        #expect(rule.region(Self.upright(), imageSize: ImageSize(width: 0, height: 0)) == nil)
    }

    @Test func aSeedMeasuresHowFarBlazePosesLandmarksLieInThePersonsSize() throws {
        let seed = try #require(BlazePoseRegionFromPose().seed(Self.upright(), imageSize: Self.size))
        // 17 points, 5 other regions (one per other reach), the size the diagonal of the points' box: √(70² + 305²).
        #expect(seed.points.count == 17 && seed.otherRegions.count == 5)
        let diagonal = Float((70.0 * 70.0 + 305.0 * 305.0).squareRoot())
        #expect(abs(seed.size - diagonal) < 1e-3)
        // BlazePose's 33 landmarks at the seed's points (COCO-17's in BlazePose's numbering), the rest far away.
        var landmarks = [SIMD2<Float>](repeating: SIMD2(-1000, -1000), count: 33)
        for (landmark, point) in seed.points { landmarks[landmark] = point }
        #expect(seed.distance(to: landmarks) == 0)
        // Every point 10 px off: 10 / diagonal.
        let shifted = landmarks.map { $0 + SIMD2(6, 8) }
        #expect(abs(seed.distance(to: shifted) - 10 / diagonal) < 1e-5)
        #expect(seed.agrees(with: shifted, tolerance: 0.25) && !seed.agrees(with: shifted, tolerance: 0.01))
        #expect(seed.distance(to: []) == .infinity)
    }
}
