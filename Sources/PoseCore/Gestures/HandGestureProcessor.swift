/// The pinch gesture of Apple's sample "Detect Body and Hand Pose with Vision" (its
/// `HandGestureProcessor`), frame by frame on one hand's 21 points (``KeypointSet/hand21``).
///
/// The sample's rules, kept: the thumb tip and the index tip must each score above
/// ``Configuration/minimumTipScore`` (0.3); tips closer than ``Configuration/pinchMaxDistance``
/// for ``Configuration/evidenceCounterStateTrigger`` (3) frames in a row mean ``State/pinched``,
/// farther for 3 frames ``State/apart``, with ``State/possiblePinch`` / ``State/possibleApart``
/// in between. The tips' midpoints seen while undecided are kept (the evidence buffer) and
/// delivered to the pinch path when the state becomes ``State/pinched``, dropped when it becomes
/// ``State/apart``. A hand unseen (or with unsure tips) for ``Configuration/lostHandReset``
/// seconds resets the processor to ``State/unknown``, as the sample does after 2 s.
///
/// One change: the sample compares the tips' distance with 40 points of its preview layer, so
/// its gesture depends on the screen and on how far the hand is from the camera. Here the
/// distance is divided by the hand's size (``handSize(of:)``: the palm, which a pinch does not
/// bend), so one threshold holds at any resolution and distance. The default, 0.5 palm, is the
/// sample's 40 points at the size a palm has on its preview (docs/hands.md, "Pinch").
///
///     var processor = HandGestureProcessor()
///     for frame in frames {
///         let update = processor.process(hand: frame.hands.first, time: frame.time)
///         if update.state == .pinched { path.append(contentsOf: update.pathPoints) }
///         if update.strokeEnded { finishStroke() }
///     }
public struct HandGestureProcessor: Sendable {
    /// The sample's gesture states.
    public enum State: String, Sendable, CaseIterable {
        case possiblePinch, pinched, possibleApart, apart, unknown
    }

    /// The thresholds; the defaults are the sample's, with the distance in hand sizes.
    public struct Configuration: Sendable, Equatable {
        /// Tips closer than this many hand sizes (``HandGestureProcessor/handSize(of:)``) are a
        /// pinch (the sample: 40 points; see the type's documentation).
        public var pinchMaxDistance: Double = 0.5
        /// Frames in a row that decide a state (the sample's `evidenceCounterStateTrigger`).
        public var evidenceCounterStateTrigger: Int = 3
        /// Each tip must score above this to count (the sample: 0.3).
        public var minimumTipScore: Double = 0.3
        /// Seconds without a usable hand after which the gesture starts over (the sample: 2).
        public var lostHandReset: Double = 2
        /// At most this many midpoints wait in the evidence buffer (memory bounded whatever the
        /// trigger; the sample's buffer holds at most `evidenceCounterStateTrigger - 1`).
        public var maximumBufferedPoints: Int = 64

        public init(pinchMaxDistance: Double = 0.5, evidenceCounterStateTrigger: Int = 3, minimumTipScore: Double = 0.3,
                    lostHandReset: Double = 2) {
            self.pinchMaxDistance = pinchMaxDistance
            self.evidenceCounterStateTrigger = max(1, evidenceCounterStateTrigger)
            self.minimumTipScore = minimumTipScore
            self.lostHandReset = lostHandReset
        }
    }

    /// What one frame did to the gesture.
    public struct Update: Sendable, Equatable {
        /// The state after this frame.
        public var state: State
        /// The state before this frame.
        public var previousState: State
        /// The thumb tip and index tip used, in the hand's pixels; nil when the hand was missing
        /// or a tip scored too low (the frame then counted for nothing).
        public var tips: (thumb: Point, index: Point)?
        /// The tips' distance in hand sizes; nil as `tips`.
        public var distance: Double?
        /// The points this frame adds to the pinch path, in order (tips' midpoints): the buffered
        /// ones and this frame's when the state becomes pinched, this frame's while it stays so.
        public var pathPoints: [Point]
        /// The path's current stroke ends with this frame (the sample's `isLastPointsPair`: the
        /// state became apart, or the hand was lost and the gesture reset).
        public var strokeEnded: Bool

        public init(state: State, previousState: State, tips: (thumb: Point, index: Point)?, distance: Double?,
                    pathPoints: [Point], strokeEnded: Bool) {
            self.state = state
            self.previousState = previousState
            self.tips = tips
            self.distance = distance
            self.pathPoints = pathPoints
            self.strokeEnded = strokeEnded
        }

        /// The state differs from the previous frame's.
        public var stateChanged: Bool { state != previousState }

        public static func == (a: Update, b: Update) -> Bool {
            a.state == b.state && a.previousState == b.previousState && a.tips?.thumb == b.tips?.thumb
                && a.tips?.index == b.tips?.index && a.distance == b.distance && a.pathPoints == b.pathPoints
                && a.strokeEnded == b.strokeEnded
        }
    }

    public let configuration: Configuration
    /// The current state.
    public private(set) var state: State = .unknown
    private var pinchEvidence = 0
    private var apartEvidence = 0
    private var evidenceBuffer: [Point] = []
    private var lastSeen: Double?
    /// Whether a stroke of the pinch path is open (points delivered since the last end).
    private var strokeOpen = false

    public init(configuration: Configuration = Configuration()) { self.configuration = configuration }

    /// Starts over: state unknown, counters and the evidence buffer cleared.
    public mutating func reset() {
        state = .unknown
        pinchEvidence = 0
        apartEvidence = 0
        evidenceBuffer.removeAll()
        strokeOpen = false
    }

    /// One frame: `hand` (a ``KeypointSet/hand21`` pose, or nil when no hand was found) at
    /// `time` seconds. A hand of another set counts as missing.
    public mutating func process(hand: Pose?, time: Double) -> Update {
        let before = state
        guard let hand, let tips = Self.tips(of: hand, minimumScore: configuration.minimumTipScore),
              let size = Self.handSize(of: hand), size > 0 else {
            // The sample's lost hand: nothing counted; after `lostHandReset` seconds, start over.
            var ended = false
            if let lastSeen, !(time - lastSeen <= configuration.lostHandReset) {
                ended = strokeOpen
                reset()
                self.lastSeen = nil
            }
            return Update(state: state, previousState: before, tips: nil, distance: nil, pathPoints: [], strokeEnded: ended)
        }
        lastSeen = time
        let distance = (tips.thumb.squaredDistance(to: tips.index)).squareRoot() / size
        let midpoint = Point(x: (tips.thumb.x + tips.index.x) / 2, y: (tips.thumb.y + tips.index.y) / 2)
        let trigger = configuration.evidenceCounterStateTrigger
        if distance < configuration.pinchMaxDistance {
            pinchEvidence += 1
            apartEvidence = 0
            state = pinchEvidence >= trigger ? .pinched : .possiblePinch
        } else {
            apartEvidence += 1
            pinchEvidence = 0
            state = apartEvidence >= trigger ? .apart : .possibleApart
        }
        // The sample's `handleGestureStateChange`: undecided points wait; a pinch delivers them.
        var path: [Point] = []
        var ended = false
        switch state {
        case .possiblePinch, .possibleApart:
            if evidenceBuffer.count < configuration.maximumBufferedPoints { evidenceBuffer.append(midpoint) }
        case .pinched:
            path = evidenceBuffer + [midpoint]
            evidenceBuffer.removeAll()
            strokeOpen = true
        case .apart, .unknown:
            evidenceBuffer.removeAll()
            ended = strokeOpen
            strokeOpen = false
        }
        return Update(state: state, previousState: before, tips: tips, distance: distance, pathPoints: path, strokeEnded: ended)
    }

    /// The hand's size in pixels: the longest of the palm's sides wrist–index MCP, wrist–middle
    /// MCP, wrist–little MCP and index MCP–little MCP. A pinch bends the fingers, not the palm,
    /// and the longest side still measures a palm turned edge-on to the camera along one axis.
    /// Nil for a pose that is not a hand.
    public static func handSize(of hand: Pose) -> Double? {
        guard hand.keypointSet == KeypointSet.hand21 else { return nil }
        let p = hand.keypoints.map(\.position)
        let (wrist, indexMCP, middleMCP, littleMCP) = (p[0], p[5], p[9], p[17])
        let sides = [wrist.squaredDistance(to: indexMCP), wrist.squaredDistance(to: middleMCP),
                     wrist.squaredDistance(to: littleMCP), indexMCP.squaredDistance(to: littleMCP)]
        let size = sides.max()!.squareRoot()
        return size.isFinite ? size : nil
    }

    /// The thumb tip and index tip when each scores above `minimumScore` and is finite.
    static func tips(of hand: Pose, minimumScore: Double) -> (thumb: Point, index: Point)? {
        guard hand.keypointSet == KeypointSet.hand21 else { return nil }
        let thumb = hand.keypoints[4], index = hand.keypoints[8]
        guard thumb.score > minimumScore, index.score > minimumScore,
              thumb.position.x.isFinite, thumb.position.y.isFinite, index.position.x.isFinite, index.position.y.isFinite
        else { return nil }
        return (thumb.position, index.position)
    }
}
