/// The repetition convention, stated once (docs/actions.md "Repetitions" says the same):
///
/// A repetition counts at its **turning point**: the deepest point of a squat or lunge, arms
/// overhead and feet apart in a jumping jack, the jump of a burpee. A repetition whose turning
/// point is not reached by the end of the input does not count; one whose turning point was
/// reached counts even when the return is cut off. A repetition's time and frame are its
/// turning point's.
///
/// Every exercise counter reduces a pose to an *excursion* (how far the body is from its start
/// posture towards the turning posture, in units of the person's own size) and two hysteresis
/// states: *extreme* (the turning posture's zone) and *neutral* (back at the start). This
/// detector turns that stream into turning points:
/// - a repetition is *armed* when the approach to its turning point is seen: the input starts
///   outside the extreme zone (for ``Settings/neutralFrames`` frames, so one glitchy pose does
///   not decide it), or the person was back in the neutral state since the last repetition.
///   An input that starts inside the zone does not show whether its turning point is still
///   ahead or already behind (PoseNet's jitter there is as large as the last bit of movement),
///   so that repetition is not counted: a user who starts recording mid-repetition does not
///   expect it either;
/// - inside the zone the extremum of the excursion is followed; the turning point is
///   *confirmed* by the frames just after it, once the excursion has fallen back by
///   ``Settings/turnBack`` from that extremum;
/// - at the end of the input no frames after it exist, so ``finish()`` counts an armed
///   repetition whose extreme zone was reached and whose excursion has stopped growing: at the
///   last frame it grows at under ``Settings/settledRate`` of the fastest rate of its own
///   approach (at a turning point the movement stops and reverses). One still moving towards
///   its turning point has not reached it and is not counted;
/// - turning points closer than ``Settings/minimumInterval`` to the previous one are the same
///   repetition (a bounce at the bottom), never a second one.
///
/// Alongside, it keeps the most exercise-like reading of a posture cue over the turning phase,
/// for the counter's ``PostureRule``: the stay in the extreme zone up to the confirmation, and
/// the last ``Settings/postureLead`` of the approach to it (a body part the rule needs may go
/// unseen right at the turning point, as wrists overhead leaving the picture).
struct TurningPointDetector<Cue> {
    struct Settings {
        /// How far the excursion must fall back from its extremum to confirm a turning point.
        var turnBack: Double
        /// Shortest time between two turning points, seconds: 0.6 of the fastest period people
        /// do the exercise at, so the fastest real tempo passes and a bounce does not count twice.
        var minimumInterval: Double
        /// At the end of the input, a repetition whose excursion grows at under this fraction of
        /// its approach's fastest rate is at its turning point.
        var settledRate = 0.3
        /// Consecutive frames the extreme (neutral) state must hold before it counts: one glitchy
        /// pose must not open or close a repetition.
        var extremeFrames = 2, neutralFrames = 3
        /// Seconds of the approach before the extreme zone whose posture readings count for the
        /// turning point: half the fastest period, about the time from the start posture to the
        /// turning posture at the fastest tempo.
        var postureLead: Double

        init(turnBack: Double, fastestPeriod: Double) {
            self.turnBack = turnBack
            minimumInterval = 0.6 * fastestPeriod
            postureLead = 0.5 * fastestPeriod
        }
    }

    /// A turning point: where it happened and the posture cue recorded there.
    struct TurningPoint {
        var slot: Int
        var sourceFrame: Int
        var time: Double
        var excursion: Double
        var cue: Cue
        /// The largest posture reading over the turning phase (nil: none was measured).
        var posture: Double?
    }

    let settings: Settings
    private enum Phase { case unknown, armed, inZone, done }
    private var phase = Phase.unknown
    /// Consecutive frames in the extreme (positive) or neutral (negative) state.
    private var streak = 0
    /// Consecutive frames outside the extreme zone (neutral or between), for the start of the input.
    private var outside = 0
    private var best: TurningPoint?
    /// The largest posture reading of the current turning phase.
    private var posture: Double?
    /// Posture readings (time, reading) of the last ``Settings/postureLead`` seconds since the
    /// last turning point, for the approach's part of the turning phase.
    private var leadReadings: [(time: Double, reading: Double)] = []
    private var lastTurnTime = -Double.infinity
    /// The last three excursions (oldest first) and the fastest growth over two frames of the
    /// current approach, for the end-of-input rule.
    private var recent: [Double] = []
    private var approachRate = 0.0

    init(_ settings: Settings) { self.settings = settings }

    /// Feeds one frame's excursion, states and posture reading (nil: not measured; larger = more
    /// like the exercise); returns a turning point once it is confirmed. `cue` is evaluated only
    /// when the frame becomes the extremum so far.
    mutating func update(slot: Int, sourceFrame: Int, time: Double, excursion: Double,
                         extreme rawExtreme: Bool, neutral rawNeutral: Bool, posture reading: Double? = nil,
                         cue: () -> Cue) -> TurningPoint? {
        streak = rawExtreme ? max(streak, 0) + 1 : (rawNeutral ? min(streak, 0) - 1 : 0)
        outside = rawExtreme ? 0 : outside + 1
        let extreme = streak >= settings.extremeFrames, neutral = streak <= -settings.neutralFrames
        if let reading { leadReadings.append((time, reading)) }
        let leadStart = time - settings.postureLead
        leadReadings.removeAll { $0.time < leadStart }
        recent.append(excursion)
        if recent.count > 3 { recent.removeFirst() }
        if recent.count == 3 { approachRate = max(approachRate, recent[2] - recent[0]) }
        switch phase {
        case .unknown:
            if extreme { phase = .done } else if outside >= settings.neutralFrames { phase = .armed }
        case .armed:
            if neutral { approachRate = 0 }  // the approach starts from here
            if extreme && time - lastTurnTime >= settings.minimumInterval {
                phase = .inZone
                posture = leadReadings.map(\.reading).max()
                best = TurningPoint(slot: slot, sourceFrame: sourceFrame, time: time, excursion: excursion, cue: cue())
            }
        case .inZone:
            if let reading { posture = max(posture ?? reading, reading) }
            if excursion > best!.excursion {
                best = TurningPoint(slot: slot, sourceFrame: sourceFrame, time: time, excursion: excursion, cue: cue())
            } else if best!.excursion - excursion >= settings.turnBack || neutral {
                return confirm()
            }
        case .done:
            if neutral { phase = .armed }
        }
        return nil
    }

    /// Ends the input: the turning point of a repetition that is at it (see the type's rule), or nil.
    mutating func finish() -> TurningPoint? {
        guard case .inZone = phase, let best, recent.count == 3 else { return nil }
        let rate = recent[2] - recent[0]
        let stillApproaching = recent[2] >= best.excursion && rate > settings.settledRate * approachRate
        return stillApproaching ? nil : confirm()
    }

    private mutating func confirm() -> TurningPoint? {
        phase = .done
        approachRate = 0
        lastTurnTime = best!.time
        best!.posture = posture
        defer { best = nil; posture = nil; leadReadings.removeAll() }
        return best
    }
}
