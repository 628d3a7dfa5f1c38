
/// One stream's pinch gestures (`posekit hands --gestures`): a `HandGestureProcessor` and a
/// `PinchPath` per hand (its id on video, its 1-based place in the frame on images). A hand
/// missing from a frame is told so (the sample's lost hand); a hand lost long enough to reset is
/// forgotten, and at most `maximumHands` paths are kept, so memory stays bounded on endless streams.
public struct PinchGestures {
    public let configuration: HandGestureProcessor.Configuration
    private var processors: [Int: HandGestureProcessor] = [:]
    /// Each hand's path so far, by hand key.
    public private(set) var paths: [Int: PinchPath] = [:]
    /// This frame's tips and state per hand, for the overlay.
    public private(set) var current: [(tips: (thumb: Point, index: Point)?, state: HandGestureProcessor.State)] = []
    /// Hands whose paths are kept, oldest first.
    public private(set) var order: [Int] = []
    /// The most hands whose paths are kept.
    public static let maximumHands = 20

    public init(configuration: HandGestureProcessor.Configuration) { self.configuration = configuration }

    /// One frame's updates (its `hands` at `time` seconds), by hand key in the frame's order,
    /// then the missing hands'.
    public mutating func update(hands: [Hand], time: Double) -> [(Int, HandGestureProcessor.Update)] {
        var updates: [(Int, HandGestureProcessor.Update)] = []
        var seen = Set<Int>()
        current = []
        for (place, hand) in hands.enumerated() {
            let key = hand.id ?? place + 1
            seen.insert(key)
            var processor = processors[key] ?? HandGestureProcessor(configuration: configuration)
            let update = processor.process(hand: hand.pose, time: time)
            processors[key] = processor
            record(update, key: key)
            current.append((update.tips, update.state))
            updates.append((key, update))
        }
        for key in processors.keys.sorted() where !seen.contains(key) {
            var processor = processors[key]!
            let update = processor.process(hand: nil, time: time)
            record(update, key: key)
            updates.append((key, update))
            // Reset after the sample's 2 s: nothing left to remember but the drawing.
            if update.state == .unknown { processors[key] = nil } else { processors[key] = processor }
        }
        return updates
    }

    private mutating func record(_ update: HandGestureProcessor.Update, key: Int) {
        guard !update.pathPoints.isEmpty || update.strokeEnded || paths[key] != nil else { return }
        var path = paths[key] ?? PinchPath()
        path.append(update)
        paths[key] = path
        order.removeAll { $0 == key }
        order.append(key)
        while order.count > Self.maximumHands { paths[order.removeFirst()] = nil }
    }
}
