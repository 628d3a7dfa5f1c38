import Foundation
import PoseNet

/// Body signals the repetition detectors read, from one pose, in units of the person's torso.
struct BodySignals {
    /// Ankle centre height above the hip centre ÷ reference torso (≈1.7 standing, ≈1 at a squat's bottom).
    var hipHeight: Double?
    /// Smallest knee angle in degrees (180 = straight leg).
    var kneeAngle: Double?
    /// Wrist centre height above the shoulder centre ÷ torso (≈ −1.2 arms down, ≈ +0.8 overhead).
    var armRaise: Double?
    /// Horizontal ankle distance ÷ torso (≈0.3 feet together, ≈1 feet apart).
    var ankleSpread: Double?
    /// Torso angle from vertical in degrees (0 upright, 90 horizontal as in a plank).
    var torsoTilt: Double?
    /// Torso length ÷ reference torso (drops when the torso points at the camera).
    var torsoRatio: Double?
}

/// A repetition one detector found, before the classifier says whether that exercise is going on.
struct RepetitionCandidate {
    var action: ActionClass
    var slot: Int
    var sourceFrame: Int
    var time: Double
}

/// Per-exercise two-state machines with hysteresis over body signals.
///
/// Each exercise has a *start* phase (standing / feet together / upright) and an *extreme* phase
/// (bottom / feet apart and arms up / plank). A repetition counts at the moment the extreme phase
/// is reached after the start phase was seen; the gap between the two thresholds keeps jitter
/// from counting twice. The signals are normalised by a running reference torso length (the
/// largest of the last 3 s), and hip height by the standing height (80th percentile of the last 5 s).
struct RepetitionCounter {
    enum Phase { case unknown, start, extreme }

    private(set) var phases: [ActionClass: Phase] = [:]
    /// Consecutive frames each condition has held (positive: extreme, negative: start).
    private var streaks: [ActionClass: Int] = [:]
    /// Frames a phase must hold before it counts: one glitchy pose (PoseNet merging the ankles
    /// for a frame, say) must not open or close a repetition.
    let extremeFrames = 2, startFrames = 3
    private var torsoHistory: [(slot: Int, length: Double)] = []
    private var heightHistory: [(slot: Int, value: Double)] = []
    private var smoothed: [String: Double] = [:]
    let minimumScore = 0.2

    mutating func reset() {
        phases = [:]; streaks = [:]; torsoHistory = []; heightHistory = []; smoothed = [:]
    }

    /// Feeds one model-rate frame; returns the repetitions completed on it.
    mutating func update(_ frame: ResampledFrame) -> [RepetitionCandidate] {
        guard let pose = frame.pose else { return [] }
        let s = signals(pose, slot: frame.slot)
        var out: [RepetitionCandidate] = []
        func step(_ action: ActionClass, extreme rawExtreme: Bool, start rawStart: Bool) {
            let phase = phases[action] ?? .unknown
            let run = streaks[action] ?? 0
            let streak = rawExtreme ? max(run, 0) + 1 : (rawStart ? min(run, 0) - 1 : 0)
            streaks[action] = streak
            let extreme = streak >= extremeFrames, start = streak <= -startFrames
            if extreme && phase == .start {
                phases[action] = .extreme
                out.append(RepetitionCandidate(action: action, slot: frame.slot, sourceFrame: frame.sourceFrame, time: frame.time))
            } else if extreme && phase == .unknown {
                phases[action] = .extreme  // started mid-repetition: do not count it
            } else if start && phase != .start {
                phases[action] = .start
            }
        }
        if let h = s.hipHeight, let href = standingHeight(h, slot: frame.slot) {
            let depth = 1 - h / href
            let knee = s.kneeAngle ?? 180
            step(.squats, extreme: depth > 0.22 || (depth > 0.12 && knee < 100), start: depth < 0.08 && knee > 150)
            // Back up from a lunge is read from the hips alone: between lunges the smaller knee
            // angle is often the far leg's, which PoseNet misplaces in a side view.
            step(.lunges, extreme: depth > 0.15 || (depth > 0.1 && knee < 110), start: depth < 0.06)
        }
        if let arm = s.armRaise, let spread = s.ankleSpread {
            let open = 0.5 * min(max((arm + 1.0) / 1.6, 0), 1) + 0.5 * min(max((spread - 0.35) / 0.6, 0), 1)
            step(.jumpingJacks, extreme: open > 0.62, start: open < 0.38)
        }
        if let tilt = s.torsoTilt, let ratio = s.torsoRatio {
            step(.burpees, extreme: tilt > 60 || ratio < 0.45, start: tilt < 30 && ratio > 0.75)
        }
        return out
    }

    /// Exponential smoothing per signal (α = 0.5): PoseNet jitters by a few pixels per frame.
    private mutating func smooth(_ key: String, _ value: Double?) -> Double? {
        guard let value else { return nil }
        let v = smoothed[key].map { 0.5 * $0 + 0.5 * value } ?? value
        smoothed[key] = v
        return v
    }

    private mutating func signals(_ pose: Pose, slot: Int) -> BodySignals {
        func ok(_ parts: BodyPart...) -> Bool { parts.allSatisfy { pose[$0].score >= minimumScore } }
        let hip = pose.midpoint(.leftHip, .rightHip), shoulder = pose.midpoint(.leftShoulder, .rightShoulder)
        var s = BodySignals()
        guard ok(.leftHip, .rightHip) || ok(.leftShoulder, .rightShoulder) else { return s }
        let torso = hip.squaredDistance(to: shoulder).squareRoot()
        torsoHistory.append((slot, torso))
        torsoHistory.removeAll { $0.slot < slot - 90 }
        let reference = torsoHistory.map(\.length).max() ?? torso
        guard reference > 1e-6 else { return s }
        s.torsoRatio = smooth("ratio", torso / reference)
        let dx = shoulder.x - hip.x, dy = shoulder.y - hip.y
        s.torsoTilt = smooth("tilt", atan2(abs(dx), abs(dy)) * 180 / .pi)
        if ok(.leftAnkle, .rightAnkle) || ok(.leftAnkle) || ok(.rightAnkle) {
            let ankleY = ok(.leftAnkle, .rightAnkle) ? (pose[.leftAnkle].position.y + pose[.rightAnkle].position.y) / 2
                : (ok(.leftAnkle) ? pose[.leftAnkle].position.y : pose[.rightAnkle].position.y)
            s.hipHeight = smooth("hip", (ankleY - hip.y) / reference)
        }
        var knees: [Double] = []
        for (h, k, a) in [(BodyPart.leftHip, BodyPart.leftKnee, BodyPart.leftAnkle), (.rightHip, .rightKnee, .rightAnkle)] where ok(h, k, a) {
            knees.append(Self.angle(pose[h].position, pose[k].position, pose[a].position))
        }
        s.kneeAngle = smooth("knee", knees.min())
        if ok(.leftWrist, .rightWrist, .leftShoulder, .rightShoulder) {
            let wristY = (pose[.leftWrist].position.y + pose[.rightWrist].position.y) / 2
            s.armRaise = smooth("arm", (shoulder.y - wristY) / reference)
        }
        if ok(.leftAnkle, .rightAnkle) {
            s.ankleSpread = smooth("spread", abs(pose[.leftAnkle].position.x - pose[.rightAnkle].position.x) / reference)
        }
        return s
    }

    /// The standing hip height: the 80th percentile of the last 5 s. Not the largest: one frame
    /// where PoseNet puts an ankle too low would raise the reference for 5 s, and the person
    /// would never again look "back up" between repetitions.
    private mutating func standingHeight(_ h: Double, slot: Int) -> Double? {
        heightHistory.append((slot, h))
        heightHistory.removeAll { $0.slot < slot - 150 }
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
