import Detectors
import Foundation
import FrameIO
import PoseCore
import Testing
@testable import MediaPipe

/// Another body model's people, given as they are (`BlazePosePersonSource`), for BlazePose to read.
struct GivenPeople: BlazePosePersonSource {
    let poses: [Pose]
    var modelName: String { "given" }
    func people(in image: RGBImage) throws -> [Pose] { poses }
}

/// A person another body model finds and BlazePose's landmark model reads in none of their regions is reported from
/// that model's pose (`BlazePoseRegionFromPose.reportsUnreadPeople`, docs/blazepose.md "Everyone in the frame"), on
/// an image with nobody in it (BlazePose reads nobody anywhere, so every person given is such a person); poses that
/// are no person (not-a-number points, no area, no score) never crash and never put a non-finite number out.
@Suite(.serialized) struct BlazePoseUnreadPeopleTests {
    /// An upright person in a 400 × 400 image (BlazePoseRegionFromPoseTests' person: hips at y 200, ankles at 360).
    static func person(score: Double = 0.8) -> Pose {
        let points: [(Double, Double)] = [(200, 60), (195, 55), (205, 55), (190, 60), (210, 60), (180, 120), (220, 120), (170, 160),
                                          (230, 160), (165, 200), (235, 200), (180, 200), (220, 200), (185, 280), (215, 280),
                                          (190, 360), (210, 360)]
        return Pose(keypoints: points.enumerated().map { Keypoint(position: Point(x: $1.0, y: $1.1), score: 0.9 - Double($0) / 100) },
                    score: score)
    }

    static let empty = RGBImage(width: 400, height: 400)

    static func detector(_ people: [Pose], reporting: Bool = true) throws -> BlazePoseDetector {
        var rule = BlazePoseRegionFromPose()
        rule.reportsUnreadPeople = reporting
        let detector = try MediaPipeModels.blazePoseDetector(maximumPoses: 5, personRegion: rule)
        detector.personSource = GivenPeople(poses: people)
        return detector
    }

    @Test func aPersonBlazePoseCannotReadIsTheOtherModelsPoseInBlazePosesLandmarks() throws {
        let given = Self.person()
        let poses = try Self.detector([given]).poses(in: Self.empty)
        let pose = try #require(poses.first)
        #expect(poses.count == 1)
        #expect(pose.landmarksFrom == "given" && pose.keypointSet == .blazePose33 && pose.world == nil && pose.score == given.score)
        // Each COCO-17 point where the other model put it, found by name (the sets' own tables, not the seed's).
        for part in BodyPart.allCases {
            #expect(pose.keypoint(named: part.name)?.position == given[part].position && pose.keypoint(named: part.name)?.score == given[part].score)
        }
        // The 16 others absent: score 0, no visibility, presence or depth, on the point they hang off.
        let coco = Set(BodyPart.allCases.map(\.name))
        let absent = pose.keypoints.indices.filter { !coco.contains(KeypointSet.blazePose33.names[$0]) }
        #expect(absent.count == 16)
        for k in pose.keypoints.indices {
            #expect(pose.keypoints[k].visibility == nil && pose.keypoints[k].presence == nil && pose.keypoints[k].z == nil)
        }
        #expect(absent.allSatisfy { pose.keypoints[$0].score == 0 })
        #expect(pose.keypoint(named: "leftHeel")?.position == given[.leftAnkle].position)
        #expect(pose.keypoint(named: "rightIndex")?.position == given[.rightWrist].position)
        #expect(pose.keypoint(named: "mouthLeft")?.position == given[.nose].position)
        #expect(pose.boundingBox == given.boundingBox)

        // Hands through this body (`pose --hands`): wrist and elbow as PoseNet's, no index or pinky (absent, on the wrist).
        let hands = BodyHandSeed.seeds(from: pose)
        #expect(hands.count == 2 && hands.allSatisfy { $0.index == nil && $0.pinky == nil && $0.elbow != nil })
        var own = pose
        own.landmarksFrom = nil
        #expect(BodyHandSeed.seeds(from: own).allSatisfy { $0.index != nil && $0.pinky != nil })

        // Off: nobody (BlazePose reads no one).
        #expect(try Self.detector([given], reporting: false).poses(in: Self.empty).isEmpty)
    }

    @Test func absentLandmarksHangOffTheirSkeletonNeighbour() throws {
        // Checked by hand against MediaPipe's POSE_CONNECTIONS: each landmark COCO-17 lacks, the first neighbour
        // there that COCO-17 has (the mouth's corners, joined only to each other, on the nose).
        let expected = ["leftEyeInner": "nose", "leftEyeOuter": "leftEye", "rightEyeInner": "nose", "rightEyeOuter": "rightEye",
                        "mouthLeft": "nose", "mouthRight": "nose",
                        "leftPinky": "leftWrist", "leftIndex": "leftWrist", "leftThumb": "leftWrist",
                        "rightPinky": "rightWrist", "rightIndex": "rightWrist", "rightThumb": "rightWrist",
                        "leftHeel": "leftAnkle", "leftFootIndex": "leftAnkle", "rightHeel": "rightAnkle", "rightFootIndex": "rightAnkle"]
        let names = KeypointSet.blazePose33.names
        let anchors = BlazePosePersonSeed.absentLandmarkAnchors
        #expect(anchors.count == expected.count && Set(anchors.map(\.landmark)).count == expected.count)
        for (landmark, anchor) in anchors { #expect(expected[names[landmark]] == names[anchor], "\(names[landmark]) on \(names[anchor])") }
        // And so in a pose reported: every absent landmark on its anchor's point.
        let pose = try #require(try Self.detector([Self.person()]).poses(in: Self.empty).first)
        for (name, anchor) in expected { #expect(pose.keypoint(named: name)?.position == pose.keypoint(named: anchor)?.position, "\(name)") }
    }

    @Test func aFaintPoseIsReportedOnceAndNotOnAPersonReportedAlready() throws {
        // Scoring under the seed's 0.2: never read, reported as it is; a second pose on the same person is not.
        let faint = Self.person(score: 0.1)
        var again = faint
        for k in again.keypoints.indices { again.keypoints[k].position.x += 3 }
        again.score = 0.05
        let poses = try Self.detector([faint, again]).poses(in: Self.empty)
        #expect(poses.count == 1 && poses.first?.score == 0.1 && poses.first?.landmarksFrom == "given")
    }

    @Test func posesThatAreNoPersonNeverCrash() throws {
        var nan = Self.person()
        for k in nan.keypoints.indices { nan.keypoints[k].position = Point(x: .nan, y: .nan) }
        var halfNaN = Self.person()
        for k in 0..<9 { halfNaN.keypoints[k].position = Point(x: .nan, y: .infinity) }
        var point = Self.person()                                      // no area: every point in one place
        for k in point.keypoints.indices { point.keypoints[k].position = Point(x: 50, y: 50) }
        var noScore = Self.person()
        noScore.score = .nan
        var nanScores = Self.person()
        for k in nanScores.keypoints.indices { nanScores.keypoints[k].score = .nan }
        var far = Self.person()
        for k in far.keypoints.indices { far.keypoints[k].position = Point(x: 1e30, y: -1e30) }
        let blaze = Pose(keypoints: Array(repeating: Keypoint(position: Point(x: 1, y: 1), score: 1), count: 33), score: 1,
                         keypointSet: .blazePose33)
        for people in [[nan], [halfNaN], [point], [noScore], [nanScores], [far], [blaze], [nan, point, halfNaN, far, nanScores, blaze, noScore]] {
            for image in [Self.empty, RGBImage(width: 1, height: 1)] {
                let poses = try Self.detector(people).poses(in: image)
                #expect(poses.count <= 5)
                for pose in poses {
                    #expect(pose.score.isFinite && pose.keypoints.allSatisfy { $0.position.x.isFinite && $0.position.y.isFinite && $0.score.isFinite })
                }
            }
        }
        // The not-a-number person has nothing to report; half of one, its finite half.
        #expect(try Self.detector([nan]).poses(in: Self.empty).isEmpty)
        let half = try #require(try Self.detector([halfNaN]).poses(in: Self.empty).first)
        #expect(half.keypoint(named: "nose")?.score == 0 && half.keypoint(named: "leftAnkle")?.position == Self.person()[.leftAnkle].position)
    }
}
