import PoseCore
/// Burpees: down to the floor (plank), back up, jump. The turning point is the jump: the highest
/// point of the hips once the body is upright again after a floor phase (for a burpee finished
/// without leaving the ground, the highest point of standing up). It counts only if the floor
/// phase brought the hips down (``posture``), which bending over from the hips does not.
struct BurpeeCounter {
    let action = ActionClass.burpees
    /// Fastest burpees: about 2 s each. A jump lifts the hips ≥ 0.25 torso, which confirms it on landing.
    private var detector = TurningPointDetector<RepetitionCue>(.init(turnBack: 0.25, fastestPeriod: 2))
    /// Lowest chest height in the floor phase since the last repetition.
    private var lowestChest: Double?
    /// What the floor phase must look like: the hips down toward the feet.
    let posture: PostureRule
    /// The posture rule's reading: its cue's largest value in the floor phase since the last repetition.
    private var floorPosture: Double?
    /// Lowest-ankle levels of recent upright frames: standing, the feet are on the floor.
    private var ankleLevels: [Double] = []
    /// Upright frames of ankle history for the floor level (3 s at 30 fps).
    let floorFrames = 90

    init(_ thresholds: RepetitionThresholds) { posture = .hipsDown(thresholds) }

    mutating func update(_ s: BodySignals, _ frame: ResampledFrame) -> RepetitionCandidate? {
        guard let tilt = s.torsoTilt, let ratio = s.torsoRatio, let hip = s.hipElevation else { return nil }
        let onFloor = tilt > 60 || ratio < 0.45, upright = tilt < 30 && ratio > 0.75
        if upright, let a = s.ankleLevel {
            ankleLevels.append(a)
            if ankleLevels.count > floorFrames { ankleLevels.removeFirst() }
        }
        if onFloor, let c = s.chestHeight { lowestChest = min(lowestChest ?? c, c) }
        let turn = detector.update(slot: frame.slot, sourceFrame: frame.sourceFrame, time: frame.time, excursion: hip,
                                   extreme: upright, neutral: onFloor) { [lowestChest, ankleLevels] in
            Self.cue(s, lowestChest: lowestChest, ankleLevels: ankleLevels)
        }
        let candidate = turn.map { RepetitionCandidate(action, $0, posture: floorPosture, rule: posture) }
        if turn != nil { lowestChest = nil; floorPosture = nil }
        // Read after the turn: a frame that confirms a repetition by going down again is the next one's.
        if onFloor, let reading = s[keyPath: posture.cue] { floorPosture = max(floorPosture ?? reading, reading) }
        return candidate
    }

    private static func cue(_ s: BodySignals, lowestChest: Double?, ankleLevels: [Double]) -> RepetitionCue {
        var jump: Double?
        if let a = s.ankleLevel, ankleLevels.count >= 10 {
            // The floor: the 80th percentile of the upright ankle levels (larger = lower), so the
            // few frames of a jump, and a frame with an ankle placed too low, do not move it.
            let floor = ankleLevels.sorted()[(ankleLevels.count - 1) * 4 / 5]
            jump = max(floor - a, 0)
        }
        return .burpee(chestHeight: lowestChest, chestToFloor: lowestChest.map { $0 < RepetitionCue.chestToFloorHeight },
                       jumpHeight: jump)
    }

    mutating func finish() -> RepetitionCandidate? {
        detector.finish().map { RepetitionCandidate(action, $0, posture: floorPosture, rule: posture) }
    }
}
