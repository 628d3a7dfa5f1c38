import Foundation
import PoseCore

/// One leg's posture in the picture, in degrees, read so that a bend toward the camera counts as
/// well as one across it. A thigh pointing at the camera looks short next to its shin: taking its
/// true length as the shin's (on straight legs PoseNet's thigh is 0.8–1.2 of its shin), a thigh
/// seen at `thigh ÷ shin` of it points out of the picture by acos of that (its *foreshortening*),
/// which both its raise and the knee's bend are at least.
struct LegPosture {
    /// Knee flexion (0 = straight): the larger of 180° − the knee angle in the picture and the
    /// thigh's foreshortening (a knee bent toward the camera keeps a nearly straight angle).
    var flexion: Double
    /// How far the thigh is raised from hanging straight down (90 = horizontal): the larger of
    /// its tilt from vertical in the picture and its foreshortening.
    var thighRaise: Double

    init(hip: Point, knee: Point, ankle: Point) {
        let thigh = hip.squaredDistance(to: knee).squareRoot(), shin = knee.squaredDistance(to: ankle).squareRoot()
        let foreshortening = shin > 1e-9 ? acos(min(thigh / shin, 1)) * 180 / .pi : 0
        flexion = max(180 - BodySignalReader.angle(hip, knee, ankle), foreshortening)
        thighRaise = max(atan2(abs(knee.x - hip.x), knee.y - hip.y) * 180 / .pi, foreshortening)
    }
}
