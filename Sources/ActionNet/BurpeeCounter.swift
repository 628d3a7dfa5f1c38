/// Burpees: down to the floor (plank), back up, jump. The turning point is the jump: the highest
/// point of the hips once the body is upright again after a floor phase (for a burpee finished
/// without leaving the ground, the highest point of standing up).
struct BurpeeCounter {
    let action = ActionClass.burpees
    /// Fastest burpees: about 2 s each. A jump lifts the hips ≥ 0.25 torso, which confirms it on landing.
    private var detector = TurningPointDetector<RepetitionCue>(.init(turnBack: 0.25, fastestPeriod: 2))
    /// Lowest chest height in the floor phase since the last repetition.
    private var lowestChest: Double?
    /// Recent lowest-ankle levels; their median is the floor while the feet are mostly on it.
    private var ankleLevels: [Double] = []
    /// Frames of ankle history for the floor level (2 s at 30 fps): a jump is far shorter.
    let floorFrames = 60

    mutating func update(_ s: BodySignals, _ frame: ResampledFrame) -> RepetitionCandidate? {
        if let a = s.ankleLevel {
            ankleLevels.append(a)
            if ankleLevels.count > floorFrames { ankleLevels.removeFirst() }
        }
        guard let tilt = s.torsoTilt, let ratio = s.torsoRatio, let hip = s.hipElevation else { return nil }
        let onFloor = tilt > 60 || ratio < 0.45, upright = tilt < 30 && ratio > 0.75
        if onFloor, let c = s.chestHeight { lowestChest = min(lowestChest ?? c, c) }
        let turn = detector.update(slot: frame.slot, sourceFrame: frame.sourceFrame, time: frame.time, excursion: hip,
                                   extreme: upright, neutral: onFloor) { [lowestChest, ankleLevels] in
            Self.cue(s, lowestChest: lowestChest, ankleLevels: ankleLevels)
        }
        if turn != nil { lowestChest = nil }
        return turn.map { RepetitionCandidate(action, $0) }
    }

    private static func cue(_ s: BodySignals, lowestChest: Double?, ankleLevels: [Double]) -> RepetitionCue {
        var jump: Double?
        if let a = s.ankleLevel, ankleLevels.count >= 10 {
            let floor = ankleLevels.sorted()[ankleLevels.count / 2]
            jump = max(floor - a, 0)
        }
        return .burpee(chestHeight: lowestChest, chestToFloor: lowestChest.map { $0 < RepetitionCue.chestToFloorHeight },
                       jumpHeight: jump)
    }

    mutating func finish() -> RepetitionCandidate? { detector.finish().map { RepetitionCandidate(action, $0) } }
}
