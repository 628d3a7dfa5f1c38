import Foundation
import PoseCore

/// What the repetition counters read from one pose, in units of the person's own size: lengths
/// are divided by a reference torso (shoulder center to hip center, the largest of the last 3 s,
/// so a torso foreshortened by bending does not shrink the unit). Nil when the parts are not seen.
struct BodySignals {
    /// Hip center height above the lowest visible ankle, the foot on the floor (≈1.7 standing,
    /// ≈1 at a squat's bottom; in a lunge the front foot, as the back heel rises).
    var hipHeight: Double?
    /// Hip drop: 1 − hipHeight ÷ standing hip height (0 standing, ≈0.3–0.5 at a squat's bottom).
    var depth: Double?
    /// Smallest knee angle, degrees (180 = straight leg).
    var kneeAngle: Double?
    /// Both knees bent: the flexion of the straighter knee seen, degrees (0 = straight leg; see
    /// ``LegPosture``). Walking keeps one leg nearly straight at every moment.
    var kneesBent: Double?
    /// A knee forward and bent: over the legs seen, the largest of each leg's smaller value of
    /// knee flexion and thigh raise, degrees (a lunge's front leg: both about 90; a leg swinging
    /// through in a walk: a bent knee under a hanging thigh).
    var kneeForward: Double?
    /// Hip center below the knees' mean height (positive: hips lower than knees).
    var hipsBelowKnees: Double?
    /// Wrist center height above the shoulder center (≈ −1.2 arms down, ≈ +0.8 overhead).
    var armRaise: Double?
    /// Mean elevation of both arms (shoulder → wrist) from hanging down, degrees (180 = overhead).
    var armAngle: Double?
    /// Horizontal ankle distance (≈0.3 feet together, ≈1 feet apart).
    var ankleSpread: Double?
    /// Horizontal ankle distance ÷ shoulder width (nil in side views, where the shoulders overlap).
    var feetApart: Double?
    /// Torso angle from vertical, degrees (0 upright, 90 horizontal as in a plank).
    var torsoTilt: Double?
    /// Torso length ÷ reference torso (drops when the torso points at the camera).
    var torsoRatio: Double?
    /// Hip center height in the image (−y), for the highest point of a jump.
    var hipElevation: Double?
    /// Shoulders above the hands (0: chest at the hands' level, as at a push-up's bottom).
    var chestHeight: Double?
    /// Lowest visible ankle's image y ÷ reference torso (larger = lower), for the floor level.
    var ankleLevel: Double?
}

/// Turns each pose into ``BodySignals``: keeps the reference torso and the standing hip height
/// over recent frames and smooths every signal a little (PoseNet jitters by a few pixels per frame).
struct BodySignalReader {
    /// Keypoints scoring lower are not used.
    let minimumScore = 0.2
    private var torsoHistory: [(slot: Int, length: Double)] = []
    private var heightHistory: [(slot: Int, value: Double)] = []
    private var smoothed: [PartialKeyPath<BodySignals>: Double] = [:]

    /// Frames of history for the reference torso (3 s) and the standing height (5 s) at 30 fps.
    let torsoFrames = 90, standingFrames = 150

    mutating func read(_ pose: Pose, slot: Int) -> BodySignals {
        func ok(_ parts: BodyPart...) -> Bool { parts.allSatisfy { pose[$0].score >= minimumScore } }
        func y(_ p: BodyPart) -> Double { pose[p].position.y }
        let hip = pose.midpoint(.leftHip, .rightHip), shoulder = pose.midpoint(.leftShoulder, .rightShoulder)
        var s = BodySignals()
        guard ok(.leftHip, .rightHip) || ok(.leftShoulder, .rightShoulder) else { return s }
        let torso = hip.squaredDistance(to: shoulder).squareRoot()
        torsoHistory.append((slot, torso))
        torsoHistory.removeAll { $0.slot < slot - torsoFrames }
        let reference = torsoHistory.map(\.length).max() ?? torso
        guard reference > 1e-6 else { return s }
        func set(_ key: WritableKeyPath<BodySignals, Double?>, _ value: Double?) {
            guard let value else { return }
            let v = smoothed[key].map { 0.5 * $0 + 0.5 * value } ?? value
            smoothed[key] = v
            s[keyPath: key] = v
        }
        set(\.torsoRatio, torso / reference)
        set(\.torsoTilt, atan2(abs(shoulder.x - hip.x), abs(shoulder.y - hip.y)) * 180 / .pi)
        set(\.hipElevation, -hip.y / reference)
        let ankles = [BodyPart.leftAnkle, .rightAnkle].filter { ok($0) }
        if !ankles.isEmpty {
            let lowest = ankles.map(y).max()!
            set(\.hipHeight, (lowest - hip.y) / reference)
            set(\.ankleLevel, lowest / reference)
            if let h = s.hipHeight, let standing = standingHeight(h, slot: slot) { s.depth = 1 - h / standing }
        }
        var knees: [Double] = [], legs: [LegPosture] = [], kneeYs: [Double] = []
        for (h, k, a) in [(BodyPart.leftHip, BodyPart.leftKnee, BodyPart.leftAnkle), (.rightHip, .rightKnee, .rightAnkle)] {
            if ok(h, k, a) {
                knees.append(Self.angle(pose[h].position, pose[k].position, pose[a].position))
                legs.append(LegPosture(hip: pose[h].position, knee: pose[k].position, ankle: pose[a].position))
            }
            if ok(k) { kneeYs.append(y(k)) }
        }
        set(\.kneeAngle, knees.min())
        set(\.kneesBent, legs.map(\.flexion).min())
        set(\.kneeForward, legs.map { min($0.flexion, $0.thighRaise) }.max())
        if !kneeYs.isEmpty { set(\.hipsBelowKnees, (hip.y - kneeYs.reduce(0, +) / Double(kneeYs.count)) / reference) }
        if ok(.leftWrist, .rightWrist, .leftShoulder, .rightShoulder) {
            let wristY = (y(.leftWrist) + y(.rightWrist)) / 2
            set(\.armRaise, (shoulder.y - wristY) / reference)
            set(\.chestHeight, (wristY - shoulder.y) / reference)
            let elevations = [(BodyPart.leftShoulder, BodyPart.leftWrist), (.rightShoulder, .rightWrist)].map { sh, wr in
                let dx = pose[wr].position.x - pose[sh].position.x, dy = pose[wr].position.y - pose[sh].position.y
                return atan2(abs(dx), dy) * 180 / .pi  // 0 hanging down, 90 sideways, 180 overhead
            }
            set(\.armAngle, (elevations[0] + elevations[1]) / 2)
        }
        if ok(.leftAnkle, .rightAnkle) {
            let spread = abs(pose[.leftAnkle].position.x - pose[.rightAnkle].position.x)
            set(\.ankleSpread, spread / reference)
            let shoulderWidth = abs(pose[.leftShoulder].position.x - pose[.rightShoulder].position.x)
            if ok(.leftShoulder, .rightShoulder), shoulderWidth > 0.3 * reference { set(\.feetApart, spread / shoulderWidth) }
        }
        return s
    }

    /// The standing hip height: the 80th percentile of the last 5 s. Not the largest: one frame
    /// where PoseNet puts an ankle too low would raise the reference for 5 s, and the person
    /// would never again look "back up" between repetitions.
    private mutating func standingHeight(_ h: Double, slot: Int) -> Double? {
        heightHistory.append((slot, h))
        heightHistory.removeAll { $0.slot < slot - standingFrames }
        let sorted = heightHistory.map(\.value).sorted()
        let top = sorted[(sorted.count - 1) * 4 / 5]
        guard top > 0.3 else { return nil }
        return top
    }

    /// Angle at `b` between `a` and `c`, in degrees.
    static func angle(_ a: Point, _ b: Point, _ c: Point) -> Double {
        let ux = a.x - b.x, uy = a.y - b.y, vx = c.x - b.x, vy = c.y - b.y
        let nu = (ux * ux + uy * uy).squareRoot(), nv = (vx * vx + vy * vy).squareRoot()
        guard nu > 1e-9, nv > 1e-9 else { return 180 }
        let cosine = max(-1, min(1, (ux * vx + uy * vy) / (nu * nv)))
        return acos(cosine) * 180 / .pi
    }
}
