import MediaPipe
import PoseCore

extension BodyHandSeed {
    /// The two hands a body pose points at (left, then right), for finding hands through the
    /// body (`HandLandmarkPipeline.process(_:sources:bodySeeds:seeding:)`): the wrist and elbow
    /// of any body set (PoseNet's COCO-17, BlazePose), and BlazePose's index and pinky points when
    /// the set has them and they are the pose's own (not a person reported from another model's pose). A seed's score is the lower of its wrist's and elbow's (both place the
    /// region); BlazePose's visibility stands in for the score where the model gives it.
    /// Points that are not finite give no seed; a pose without wrists (a hand) gives none.
    public static func seeds(from pose: Pose) -> [BodyHandSeed] {
        sidedSeeds(from: pose).map(\.seed)
    }

    /// ``seeds(from:)`` with the side of each (the body model's label).
    public static func sidedSeeds(from pose: Pose) -> [(seed: BodyHandSeed, side: HandChirality)] {
        HandChirality.allCases.compactMap { chirality in
            let side = chirality.rawValue
            guard let wrist = pose.keypoint(named: side + "Wrist"), let elbow = pose.keypoint(named: side + "Elbow"),
                  let wristPoint = point(wrist), let elbowPoint = point(elbow) else { return nil }
            let score = min(wrist.visibility ?? wrist.score, elbow.visibility ?? elbow.score)
            // A person reported from another model's pose (`Pose.landmarksFrom`: BlazePose for everyone's people from
            // PoseNet) has COCO-17's points only: their index and pinky are absent, placed on the wrist.
            let own = pose.landmarksFrom == nil
            let seed = BodyHandSeed(wrist: wristPoint, elbow: elbowPoint,
                                    index: own ? pose.keypoint(named: side + "Index").flatMap(point) : nil,
                                    pinky: own ? pose.keypoint(named: side + "Pinky").flatMap(point) : nil,
                                    score: Float(score.isFinite ? score : 0))
            return (seed, chirality)
        }
    }

    private static func point(_ keypoint: Keypoint) -> SIMD2<Float>? {
        let p = SIMD2(Float(keypoint.position.x), Float(keypoint.position.y))
        return p.x.isFinite && p.y.isFinite ? p : nil
    }
}
