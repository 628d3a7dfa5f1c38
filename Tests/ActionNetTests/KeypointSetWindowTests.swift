import Testing
import PoseCore
@testable import ActionNet

/// Action windows read any body set through its COCO-17 map.
@Suite struct KeypointSetWindowTests {
    /// `pose` (COCO-17) as a BlazePose pose: its 17 points at BlazePose's COCO indices, the 16
    /// other BlazePose points far away with low scores (nothing may read them).
    static func blazePose(from pose: Pose) -> Pose {
        var points = Array(repeating: Point(x: -5000, y: 9000), count: 33), scores = Array(repeating: 0.01, count: 33)
        for (part, index) in zip(BodyPart.allCases, [0, 2, 5, 7, 8, 11, 12, 13, 14, 15, 16, 23, 24, 25, 26, 27, 28]) {
            points[index] = pose[part].position
            scores[index] = pose[part].score
        }
        return Pose(keypointSet: .blazePose33, points: points, scores: scores, score: pose.score)
    }

    @Test func visionJointsAreTheVisionSet() {
        #expect(VisionJoint.allCases.map { "\($0)" } == KeypointSet.vision18.names)
        #expect(VisionJoint.neck.bodyPart == nil && VisionJoint.leftEar.bodyPart == .leftEar && VisionJoint.rightHip.bodyPart == .rightHip)
    }

    @Test func blazePoseWindowsEqualTheirCOCOWindows() {
        let coco = (0..<60).map { i in
            Fixtures.mapped(Fixtures.standingPose(cx: 300 + Double(i), cy: 240)) { Point(x: $0.x, y: $0.y + 10 * Double(i % 7)) }
        }
        func window(_ poses: [Pose]) -> PoseWindow {
            PoseWindow(frames: poses.enumerated().map { ResampledFrame(slot: $0, time: Double($0) / 30, sourceFrame: $0, pose: $1, trackID: 1) })
        }
        let blaze = coco.map(Self.blazePose(from:))
        #expect(window(blaze).features() == window(coco).features())
        #expect(window(blaze).visionInput(width: 640, height: 480) == window(coco).visionInput(width: 640, height: 480))
        #expect(window(coco).visionInput(width: 640, height: 480).contains { $0 != 0 })
        // A hand is no body: its Vision row is empty, as for no person.
        let hand = Pose(keypointSet: .hand21, points: Array(repeating: Point(x: 10, y: 10), count: 21), scores: Array(repeating: 0.9, count: 21))
        #expect(VisionPoseRow.values(for: hand, width: 640, height: 480) == VisionPoseRow.values(for: nil, width: 640, height: 480))
    }

    /// Vision's points lie on the image: a keypoint above the frame is clamped onto its top edge.
    @Test func visionRowsClampKeypointsOntoTheImage() {
        var pose = Fixtures.standingPose(cx: 320, cy: 100)
        pose.keypoints[BodyPart.nose.rawValue].position = Point(x: -30, y: -12)
        let row = VisionPoseRow.values(for: pose, width: 640, height: 480)
        let joints = VisionJoint.allCases.count
        #expect(row[VisionJoint.nose.rawValue] == 0 && row[joints + VisionJoint.nose.rawValue] == Float(1 - 0 / 480.0))
    }
}
