/// What a turning point must look like to count as a repetition of its exercise. Each counter
/// finds turning points on one geometric signal (the hips' height, how open the body is), and
/// anything that moves that signal makes one: a man walking toward a low camera, whose ankle
/// PoseNet places too high, looks like hips dropping. The rule reads a second, independent
/// posture cue over the turning phase (``TurningPointDetector``) and rejects the turning point
/// when even the most exercise-like reading of that cue is far from the exercise.
///
/// Each threshold comes from ``RepetitionThresholds`` (the shipped ones: the physical bounds below,
/// which the leave-one-clip-out protocol of docs/actions.md "How the thresholds are chosen" keeps,
/// since on no shared clip does the pipeline count a turning point of another movement). A cue
/// never measured (the body parts not seen well enough) rejects nothing: a rejection needs evidence.
struct PostureRule: Sendable {
    /// The rule's name in `rejected_rep` events (`knees_bent`, `knee_forward`, `arms_raised`, `hips_down`).
    let name: String
    /// The cue, larger = more like the exercise.
    let cue: KeyPath<BodySignals, Double?> & Sendable
    /// The least reading that counts.
    let minimum: Double

    /// Whether a turning point whose most exercise-like reading of the cue was `reading` (nil:
    /// never measured) is a repetition.
    func accepts(_ reading: Double?) -> Bool { reading.map { $0 >= minimum } ?? true }

    /// Squats, over the bottom: both knees bent at least 60° (seen from the side, knee angles of
    /// 120° or less; ``BodySignals/kneesBent``). The squat zone admits bottoms from about 75° of
    /// flexion; standing and walking keep one knee within 20° of straight, which PoseNet reads as
    /// up to about 35°.
    static func kneesBent(_ t: RepetitionThresholds) -> PostureRule { PostureRule(name: "knees_bent", cue: \.kneesBent, minimum: t.kneesBent) }

    /// Lunges, over the bottom: a knee forward and bent, both its flexion and its thigh's raise
    /// at least 55° (``BodySignals/kneeForward``; a lunge's front leg: about 90° each). A walk's
    /// swinging leg bends its knee 60° under a thigh raised 20–30°; straight legs read up to
    /// about 35°. That the bent leg is the front one is not checked further: in side views
    /// PoseNet often lays the far leg on the near one, so the stance split is not seen.
    static func kneeForward(_ t: RepetitionThresholds) -> PostureRule {
        PostureRule(name: "knee_forward", cue: \.kneeForward, minimum: t.kneeForward)
    }

    /// Jumping jacks, around the most open moment: the arms raised at least 105° from hanging down
    /// (``BodySignals/armAngle``), above shoulder height. Jumping jacks bring the hands overhead
    /// (130–175° measured); arms swinging in other exercises stay under about 85°.
    static func armsRaised(_ t: RepetitionThresholds) -> PostureRule { PostureRule(name: "arms_raised", cue: \.armAngle, minimum: t.armsRaised) }

    /// Burpees, over the floor phase: the hips down at least 40 % of the standing hip height
    /// toward the feet (``BodySignals/depth``; a plank or the crouch before it: 60–70 %). Bending
    /// over from the hips or touching the toes tips the torso as far, with the hips under 15 %.
    static func hipsDown(_ t: RepetitionThresholds) -> PostureRule { PostureRule(name: "hips_down", cue: \.depth, minimum: t.hipsDown) }
}
