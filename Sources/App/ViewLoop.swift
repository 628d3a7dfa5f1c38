import Foundation
import PoseKit
import ViewServer

/// `posekit view`'s run over the frames: each frame's JSON line (and gesture and action lines)
/// written as `pose`, `hands --gestures` and `actions` write them, then the frame and its scene
/// handed to the viewers (`LiveFeed.publish`, which never waits for them).
struct ViewLoop {
    let source: String
    let coordinates: KeypointCoordinates
    let feed: LiveFeed
    let engine: ActionEngine?
    var gestures: PinchGestures?
    let json: ByteSink
    let reporter: ProgressReporter?

    private let arrivals = FrameArrivals()
    private var rate = RecentRate()
    /// Frames dropped (a live source's late frames), frames processed.
    private(set) var dropped = 0
    private(set) var framesProcessed = 0
    private var text = JSONText()
    private var pixelText = JSONText()

    init(source: String, coordinates: KeypointCoordinates, feed: LiveFeed, engine: ActionEngine?, gestures: PinchGestures?,
         json: ByteSink, reporter: ProgressReporter?) {
        self.source = source
        self.coordinates = coordinates
        self.feed = feed
        self.engine = engine
        self.gestures = gestures
        self.json = json
        self.reporter = reporter
    }

    /// Every frame of `frames` through `finder` (and the hands, seeded by its poses, with a
    /// `handDetector`), in the stream's order, late frames dropped when `dropsLateFrames`.
    mutating func run<Frames: AsyncSequence & Sendable>(frames: Frames, finder: any PoseFrameModel, handDetector: HandDetector?,
                                                        smoothing: Bool, tracking: PoseTracker.Configuration,
                                                        dropsLateFrames: Bool) async throws where Frames.Element == VideoFrame {
        let stamped = ArrivalStampedFrames(frames: frames, arrivals: arrivals)
        let json = self.json
        if let handDetector {
            let both = BodyAndHandsModel(body: finder, hands: handDetector)
            var processed = both.frames(from: stamped, smoothing: smoothing, tracking: tracking, dropsLateFrames: dropsLateFrames).makeAsyncIterator()
            processed.whenWaiting = { try? json.flush() }
            while let next = try await processed.next() {
                try handle(next.frame, poses: next.output.poses, hands: next.output.hands, dropped: next.droppedBefore)
            }
        } else {
            var processed = finder.poses(from: stamped, smoothing: smoothing, tracking: tracking, dropsLateFrames: dropsLateFrames).makeAsyncIterator()
            processed.whenWaiting = { try? json.flush() }
            while let next = try await processed.next() {
                try handle(next.frame, poses: next.poses, hands: nil, dropped: next.droppedBefore)
            }
        }
    }

    /// One frame: its lines, then its scene to the viewers.
    private mutating func handle(_ frame: VideoFrame, poses: [Pose], hands: [Hand]?, dropped newlyDropped: Int) throws {
        let assigned = hands.map { HandAssignment.assign($0, to: poses) }
        func line(_ coordinates: KeypointCoordinates, into text: inout JSONText) {
            text.reset()
            PoseJSONLinesEncoder.append(source: source, frame: frame.index, width: frame.width, height: frame.height, time: frame.time,
                                        poses: poses, hands: assigned?.perPose, unassignedHands: assigned?.unassigned ?? [],
                                        coordinates: coordinates, to: &text)
        }
        line(coordinates, into: &text)
        try text.bytes.withUnsafeBytes { try json.write($0) }
        try json.endRecord()
        if coordinates != .pixels { line(.pixels, into: &pixelText) }
        if gestures != nil, let hands {
            for (hand, update) in gestures!.update(ProcessedFrame(frame: frame, output: hands)) where HandGestureJSON.isEvent(update) {
                var gesture = JSONText(capacity: 512)
                HandGestureJSON.write(update, source: source, frame: frame.index, time: frame.time, hand: hand,
                                      coordinates: coordinates, width: frame.width, height: frame.height, to: &gesture)
                try gesture.bytes.withUnsafeBytes { try json.write($0) }
                try json.endRecord()
            }
        }
        if let engine {
            let time = frame.time ?? Double(frame.index) / PoseStream.fallbackFrameRate
            try emit(engine.process(frameIndex: frame.index, time: time, poses: poses, imageWidth: frame.width, imageHeight: frame.height))
        }
        let now = MonotonicClock.now()
        rate.add(now)
        dropped += newlyDropped
        let scene = ViewScene.scene(poseLine: coordinates == .pixels ? text.bytes : pixelText.bytes, gestures: gestures, engine: engine,
                                    pipelineRate: rate.perSecond, dropped: dropped)
        feed.publish(LiveFeed.Frame(index: frame.index, image: frame, arrival: arrivals.arrival(of: frame.index) ?? now, scene: scene))
        reporter?.frameDone(dropped: newlyDropped)
        framesProcessed += 1
        try InputCancellation.check()
    }

    /// The end of the frames (or a stop, or `failure`): the last window and the summary, and the
    /// viewers told.
    mutating func finish(failure: String?) throws {
        defer { feed.end(ViewScene.end(engine: engine, failure: failure)) }
        if let engine { try emit(engine.finish()) }
        try json.flush()
    }

    /// Action events, one JSON line each, as `posekit actions` writes them.
    private func emit(_ events: [ActionEvent]) throws {
        guard !events.isEmpty else { return }
        var lines = JSONText(capacity: 512 * events.count)
        for event in events { event.append(to: &lines); lines.newline() }
        try json.write(lines.bytes)
        try json.endRecord()
    }
}

/// When each recent frame arrived from the source (`MonotonicClock` seconds), by frame index:
/// the start of the arrival-to-display delay. Holds the last 256 frames (memory stays flat).
final class FrameArrivals: @unchecked Sendable {
    private let lock = NSLock()
    private var slots = [(index: Int, time: Double)](repeating: (-1, 0), count: 256)

    func record(_ index: Int, at time: Double) {
        lock.lock(); defer { lock.unlock() }
        slots[index & 255] = (index, time)
    }

    func arrival(of index: Int) -> Double? {
        lock.lock(); defer { lock.unlock() }
        let slot = slots[index & 255]
        return slot.index == index ? slot.time : nil
    }
}

/// The source's frames, each one's arrival recorded as it is read.
struct ArrivalStampedFrames<Frames: AsyncSequence & Sendable>: AsyncSequence, Sendable where Frames.Element == VideoFrame {
    typealias Element = VideoFrame
    let frames: Frames
    let arrivals: FrameArrivals

    func makeAsyncIterator() -> Iterator { Iterator(base: frames.makeAsyncIterator(), arrivals: arrivals) }

    struct Iterator: AsyncIteratorProtocol {
        var base: Frames.AsyncIterator
        let arrivals: FrameArrivals

        mutating func next() async throws -> VideoFrame? {
            guard let frame = try await base.next() else { return nil }
            arrivals.record(frame.index, at: MonotonicClock.now())
            return frame
        }
    }
}

/// Frames per second over the last 2 s.
struct RecentRate {
    private var times: [Double] = []

    mutating func add(_ time: Double) {
        times.append(time)
        if let cut = times.firstIndex(where: { $0 >= time - 2 }), cut > 0 { times.removeFirst(cut) }
    }

    var perSecond: Double {
        guard times.count > 1, let first = times.first, let last = times.last, last > first else { return 0 }
        return Double(times.count - 1) / (last - first)
    }
}

/// Any sendable sequence of frames as one type (a played file or a live source).
struct AnySendableFrames: AsyncSequence, Sendable {
    typealias Element = VideoFrame
    private let make: @Sendable () -> Iterator

    init<Frames: AsyncSequence & Sendable>(_ frames: Frames) where Frames.Element == VideoFrame {
        make = { Iterator(frames.makeAsyncIterator()) }
    }

    func makeAsyncIterator() -> Iterator { make() }

    struct Iterator: AsyncIteratorProtocol {
        private final class Box<Base: AsyncIteratorProtocol>: @unchecked Sendable where Base.Element == VideoFrame {
            var base: Base
            init(_ base: Base) { self.base = base }
        }
        private let nextFrame: () async throws -> VideoFrame?

        init<Base: AsyncIteratorProtocol>(_ base: Base) where Base.Element == VideoFrame {
            let box = Box(base)
            nextFrame = { try await box.base.next() }
        }

        mutating func next() async throws -> VideoFrame? { try await nextFrame() }
    }
}
