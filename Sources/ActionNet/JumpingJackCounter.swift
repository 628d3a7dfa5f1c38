import PoseCore
/// Jumping jacks: the turning point is arms overhead and feet apart, the most open moment.
/// Openness blends arm elevation (wrists from 1 torso below the shoulders to 0.6 above) and
/// leg spread (ankles from 0.35 to 0.95 torso apart) equally. The zones read each part capped at
/// its full range, so neither alone makes a repetition; the turning point is the peak of the
/// uncapped blend, which keeps growing until the arms and legs are at their widest. It counts
/// only with the arms raised (``posture``): wide legs with low arms are not a jumping jack.
struct JumpingJackCounter {
    let action = ActionClass.jumpingJacks
    /// Fastest jumping jacks: about 0.6 s each.
    private var detector = TurningPointDetector<RepetitionCue>(.init(turnBack: 0.15, fastestPeriod: 0.6))
    /// What the most open moment must look like: arms raised.
    let posture: PostureRule
    /// Openness that enters the open zone (``RepetitionThresholds/jumpingJackOpenness``); back
    /// closed under `1 −` it.
    let extremeOpenness: Double

    init(_ thresholds: RepetitionThresholds) {
        posture = .armsRaised(thresholds)
        extremeOpenness = thresholds.jumpingJackOpenness
    }

    static func openness(armRaise: Double, ankleSpread: Double, cap: Double) -> Double {
        0.5 * min(max((armRaise + 1.0) / 1.6, 0), cap) + 0.5 * min(max((ankleSpread - 0.35) / 0.6, 0), cap)
    }

    mutating func update(_ s: BodySignals, _ frame: ResampledFrame) -> RepetitionCandidate? {
        guard let arm = s.armRaise, let spread = s.ankleSpread else { return nil }
        let open = Self.openness(armRaise: arm, ankleSpread: spread, cap: 1)
        let excursion = Self.openness(armRaise: arm, ankleSpread: spread, cap: .infinity)
        let turn = detector.update(slot: frame.slot, sourceFrame: frame.sourceFrame, time: frame.time, excursion: excursion,
                                   extreme: open > extremeOpenness, neutral: open < 1 - extremeOpenness, posture: s[keyPath: posture.cue]) {
            .amplitude(armAngle: s.armAngle, feetApart: s.feetApart)
        }
        return turn.map { RepetitionCandidate(action, $0, rule: posture) }
    }

    mutating func finish() -> RepetitionCandidate? { detector.finish().map { RepetitionCandidate(action, $0, rule: posture) } }
}
