import Foundation

/// The repetition counters' settings that were chosen on real clips, in one place: where each
/// counter's extreme zone starts and the least reading each posture rule (`PostureRule`) accepts.
/// The counters and rules read them from here; ``ActionEngineConfiguration/repetitionThresholds``
/// carries them into a pipeline.
///
/// ``shipped`` was chosen by the leave-one-clip-out protocol of docs/actions.md ("How the
/// thresholds are chosen"; `scripts/rep-protocol.sh`, `posekit train-actions --choose-thresholds`):
/// each zone in the middle of the widest run of grid values that counts the training clips
/// exactly, each posture threshold just above the turning points the pipeline counts for the
/// exercise on clips of other movements (kept where it counts none). The settings not listed here
/// (tempos, how far a turning point must come back, the burpee's zones) come from how people do
/// the exercises and from stick figures, not from the clips.
public struct RepetitionThresholds: Sendable, Equatable, CustomStringConvertible {
    /// Squats: the hip drop, as a fraction of the standing hip height, that enters the bottom zone
    /// on its own (a smaller drop needs a bent knee too).
    public var squatDepth: Double
    /// Lunges: likewise.
    public var lungeDepth: Double
    /// Jumping jacks: the openness (0 arms down and feet together, 1 arms overhead and feet
    /// apart) that enters the open zone; the body is back closed under `1 − jumpingJackOpenness`.
    public var jumpingJackOpenness: Double
    /// Squats' posture rule `knees_bent`: the least flexion of the straighter knee, degrees.
    public var kneesBent: Double
    /// Lunges' posture rule `knee_forward`: the least of a knee's flexion and its thigh's raise, degrees.
    public var kneeForward: Double
    /// Jumping jacks' posture rule `arms_raised`: the least arm elevation from hanging down, degrees.
    public var armsRaised: Double
    /// Burpees' posture rule `hips_down`: the least hip drop in the floor phase (fraction of the
    /// standing hip height). Set on stick figures: no shared clip shows a burpee.
    public var hipsDown: Double

    public init(squatDepth: Double, lungeDepth: Double, jumpingJackOpenness: Double,
                kneesBent: Double, kneeForward: Double, armsRaised: Double, hipsDown: Double) {
        self.squatDepth = squatDepth; self.lungeDepth = lungeDepth; self.jumpingJackOpenness = jumpingJackOpenness
        self.kneesBent = kneesBent; self.kneeForward = kneeForward; self.armsRaised = armsRaised; self.hipsDown = hipsDown
    }

    /// What `posekit actions` and ``ActionRecognizer`` use: chosen on all five shared clips by
    /// the protocol above (its held-out counts: docs/actions.md).
    /// The zones are the grids' middles (every grid value counts the clips exactly). The posture
    /// thresholds are the physical bounds the rules started from (a squat bends both knees at least
    /// 60°, a lunge's front knee and thigh 55°, a jumping jack raises the arms above the shoulders,
    /// 105°; a burpee drops the hips 40 %): on no clip does the pipeline count a turning point of
    /// anything but the exercise, so no clip gives a reason to move them.
    public static let shipped = RepetitionThresholds(squatDepth: 0.22, lungeDepth: 0.15, jumpingJackOpenness: 0.62,
                                                     kneesBent: 60, kneeForward: 55, armsRaised: 105, hipsDown: 0.4)

    /// The same zones with every posture rule off (it accepts any reading): what the protocol
    /// counts with while it chooses the zones.
    public var withoutPostureRules: RepetitionThresholds {
        var t = self
        t.kneesBent = -.infinity; t.kneeForward = -.infinity; t.armsRaised = -.infinity; t.hipsDown = -.infinity
        return t
    }

    /// The posture rule threshold of `exercise` (nil for ``ActionClass/other``).
    public func postureMinimum(_ exercise: ActionClass) -> Double? {
        switch exercise {
        case .squats: return kneesBent
        case .lunges: return kneeForward
        case .jumpingJacks: return armsRaised
        case .burpees: return hipsDown
        case .other: return nil
        }
    }

    /// Sets the posture rule threshold of `exercise` (nothing for ``ActionClass/other``).
    public mutating func setPostureMinimum(_ exercise: ActionClass, _ value: Double) {
        switch exercise {
        case .squats: kneesBent = value
        case .lunges: kneeForward = value
        case .jumpingJacks: armsRaised = value
        case .burpees: hipsDown = value
        case .other: break
        }
    }

    /// The zone setting of `exercise` (nil where none is chosen on clips: burpees, other).
    public func zone(_ exercise: ActionClass) -> Double? {
        switch exercise {
        case .squats: return squatDepth
        case .lunges: return lungeDepth
        case .jumpingJacks: return jumpingJackOpenness
        case .burpees, .other: return nil
        }
    }

    /// Sets the zone setting of `exercise` (nothing for burpees and other).
    public mutating func setZone(_ exercise: ActionClass, _ value: Double) {
        switch exercise {
        case .squats: squatDepth = value
        case .lunges: lungeDepth = value
        case .jumpingJacks: jumpingJackOpenness = value
        case .burpees, .other: break
        }
    }

    /// `squats zone 0.22 knees_bent 60, lunges zone 0.15 knee_forward 55, ...`.
    public var description: String {
        func n(_ x: Double) -> String { x == -.infinity ? "off" : (x >= 2 ? String(format: "%.0f", x) : String(format: "%.3g", x)) }
        return "squats zone \(n(squatDepth)) knees_bent \(n(kneesBent)), lunges zone \(n(lungeDepth)) knee_forward \(n(kneeForward)), "
            + "jumping_jacks zone \(n(jumpingJackOpenness)) arms_raised \(n(armsRaised)), burpees hips_down \(n(hipsDown))"
    }
}
