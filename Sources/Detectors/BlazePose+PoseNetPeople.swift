import Foundation
import FrameIO
import MediaPipe
import PoseCore
import PoseNet

/// PoseNet's multi-person poses as the people BlazePose reads (``BlazePoseDetector/personSource``).
extension PoseDetector: BlazePosePersonSource {
    /// The poses PoseNet finds in `image` (its one-call method).
    public func people(in image: RGBImage) throws -> [Pose] {
        try poses(in: image)
    }
}

extension BlazePoseDetector {
    /// BlazePose for everyone in the frame (`posekit pose --model blazepose --max-poses N`): BlazePose's
    /// own detector finds the prominent person (and few others), PoseNet (`people`, `posekit pose`'s
    /// defaults) the rest, each read by BlazePose in a region of their own and followed on video with one
    /// id each (docs/blazepose.md, "Everyone in the frame"). PoseNet runs only while fewer than
    /// `configuration.maximumPoses` people are followed.
    ///
    ///     let everyone = try BlazePoseDetector.everyone(configuration: .init(maximumPoses: 5))
    ///     let poses = try everyone.poses(in: RGBImage(contentsOfFile: "team.ppm"))
    public static func everyone(configuration: Configuration, people model: PoseModel = .default) throws -> BlazePoseDetector {
        var configuration = configuration
        // The study of docs/blazepose.md ("Everyone in the frame", scripts/blazepose-everyone.py) sweeps the
        // region's reach and the rules of choosing a reading.
        if let reach = ProcessInfo.processInfo.environment["POSEKIT_BLAZEPOSE_PERSON_REACH"].flatMap(Float.init), reach > 0, reach < 10 {
            configuration.personRegion.reach = reach
        }
        let environment = ProcessInfo.processInfo.environment
        if let close = environment["POSEKIT_BLAZEPOSE_PERSON_CLOSE"].flatMap(Float.init), close >= 0, close <= 1 {
            configuration.personRegion.closeEnough = close
        }
        if let reread = environment["POSEKIT_BLAZEPOSE_PERSON_REREAD"] { configuration.personRegion.rereadsDetected = reread != "0" }
        let detector = try BlazePoseDetector(configuration: configuration)
        detector.personSource = try PoseDetector(model: model, configuration: PoseDetector.Configuration(threads: configuration.threads))
        return detector
    }
}
