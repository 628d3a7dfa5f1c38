import Foundation
import FrameIO
import MediaPipe
import PoseCore
import PoseNet
import Tensor

/// PoseNet's multi-person poses as the people BlazePose reads (``BlazePoseDetector/personSource``).
extension PoseDetector: BlazePosePersonSource {
    /// The poses PoseNet finds in `image` (its one-call method).
    public func people(in image: RGBImage) throws -> [Pose] {
        try poses(in: image)
    }

    /// `"posenet"`, the family's name in `ModelCatalogue` (`landmarks_from` in `posekit pose` output).
    public var modelName: String { ModelCatalogue.Family.poseNet.rawValue }
}

extension BlazePoseDetector {
    /// BlazePose for everyone in the frame (`posekit pose --model blazepose --max-poses N`): BlazePose's
    /// own detector finds the prominent person (and few others), PoseNet (`people`, `posekit pose`'s
    /// defaults) the rest, each read by BlazePose in a region of their own and followed on video with one
    /// id each (docs/blazepose.md, "Everyone in the frame"). PoseNet runs only while fewer than
    /// `configuration.maximumPoses` people are followed. A person BlazePose reads in none of their regions is
    /// PoseNet's pose in BlazePose's landmarks (COCO-17's points only, `Pose.landmarksFrom` `"posenet"`) unless
    /// `configuration.personRegion.reportsUnreadPeople` is off.
    ///
    ///     let everyone = try BlazePoseDetector.everyone(configuration: .init(maximumPoses: 5))
    ///     let poses = try everyone.poses(in: RGBImage(contentsOfFile: "team.ppm"))
    public static func everyone(configuration: Configuration, people model: PoseModel = .default) throws -> BlazePoseDetector {
        let detector = try BlazePoseDetector(configuration: configuration)
        detector.personSource = try PoseDetector(model: model, configuration: PoseDetector.Configuration(threads: configuration.threads))
        return detector
    }
}
