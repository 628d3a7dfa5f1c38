import Foundation
import PoseKit
import ViewServer

/// `posekit view`'s run over the frames, on the frame commands' one loop (``/Streaming/FrameLoop``): each
/// frame's record holds its JSON line, gesture lines and action events, as `pose`, `hands
/// --gestures` and `actions` write them; then the frame and its scene go to the viewers
/// (`LiveFeed.publish`, which never waits for them).
public struct ViewLoop {
    /// The source's name (the JSON's "source").
    public let source: String
    /// The keypoints' coordinates in the JSON Lines (the page always gets pixels).
    public let coordinates: KeypointCoordinates
    /// Where each frame and its scene go.
    public let feed: LiveFeed
    /// The followed person's action and repetitions; nil: none.
    public let engine: ActionEngine?
    /// The pinch strokes (hands only); nil: none.
    public var gestures: PinchGestures?
    /// Where the JSON Lines go.
    public let json: ByteSink
    /// Counts frames and dropped frames; nil: no progress.
    public let reporter: ProgressReporter?

    private let arrivals = FrameArrivals()
    private var rate = RecentRate()
    /// Frames dropped (a live source's late frames), frames processed.
    public private(set) var dropped = 0
    public private(set) var framesProcessed = 0
    /// The page's copy of a frame's line when the JSON Lines are not in pixels, and that line
    /// without its newline: reused from frame to frame (no allocation per frame).
    private var pixelText = JSONText()
    private var pixelLine: [UInt8] = []

    /// A loop publishing to `feed` and writing the JSON Lines of `source` to `json`.
    public init(source: String, coordinates: KeypointCoordinates, feed: LiveFeed, engine: ActionEngine?, gestures: PinchGestures?,
         json: ByteSink, reporter: ProgressReporter?) {
        self.source = source
        self.coordinates = coordinates
        self.feed = feed
        self.engine = engine
        self.gestures = gestures
        self.json = json
        self.reporter = reporter
        pixelLine.reserveCapacity(4096)
    }

    /// Every frame of `frames` through `finder` (and the hands, seeded by its poses, with a
    /// `handDetector`), in the stream's order, late frames dropped when `dropsLateFrames`.
    public mutating func run<Frames: AsyncSequence & Sendable>(frames: Frames, finder: any PoseFrameModel, handDetector: HandDetector?,
                                                        smoothing: Bool, tracking: PoseTracker.Configuration,
                                                        dropsLateFrames: Bool) async throws where Frames.Element == VideoFrame {
        let stamped = ArrivalStampedFrames(frames: frames, arrivals: arrivals)
        let loop = FrameLoop(json: json, overlay: nil, flushed: [json], progress: reporter)
        if let handDetector {
            let both = BodyAndHandsModel(body: finder, hands: handDetector)
            try await loop.run(both.frames(from: stamped, smoothing: smoothing, tracking: tracking, dropsLateFrames: dropsLateFrames).makeAsyncIterator(),
                               lines: { frame, text in
                                   try lines(frame.frame, poses: frame.output.poses, hands: frame.output.hands, dropped: frame.droppedBefore, into: &text)
                               })
        } else {
            try await loop.run(finder.poses(from: stamped, smoothing: smoothing, tracking: tracking, dropsLateFrames: dropsLateFrames).makeAsyncIterator(),
                               lines: { frame, text in
                                   try lines(frame.frame, poses: frame.poses, hands: nil, dropped: frame.droppedBefore, into: &text)
                               })
        }
    }

    /// One frame: its lines into `text` (the loop writes them as one record), then its scene to the viewers.
    private mutating func lines(_ frame: VideoFrame, poses: [Pose], hands: [Hand]?, dropped newlyDropped: Int, into text: inout JSONText) throws {
        let assigned = hands.map { HandAssignment.assign($0, to: poses) }
        func line(_ coordinates: KeypointCoordinates, into text: inout JSONText) {
            PoseJSONLinesEncoder.append(source: source, frame: frame.index, width: frame.width, height: frame.height, time: frame.time,
                                        poses: poses, hands: assigned?.perPose, unassignedHands: assigned?.unassigned ?? [],
                                        coordinates: coordinates, to: &text)
        }
        line(coordinates, into: &text)
        // The page's copy of the line: in pixels, without its newline (`text` holds the line alone so far).
        pixelLine.removeAll(keepingCapacity: true)
        if coordinates == .pixels {
            pixelLine.append(contentsOf: text.bytes)
        } else {
            pixelText.reset()
            line(.pixels, into: &pixelText)
            pixelLine.append(contentsOf: pixelText.bytes)
        }
        if pixelLine.last == UInt8(ascii: "\n") { pixelLine.removeLast() }
        if gestures != nil, let hands {
            for (hand, update) in gestures!.update(ProcessedFrame(frame: frame, output: hands)) where HandGestureJSON.isEvent(update) {
                HandGestureJSON.write(update, source: source, frame: frame.index, time: frame.time, hand: hand,
                                      coordinates: coordinates, width: frame.width, height: frame.height, to: &text)
            }
        }
        if let engine {
            // As `posekit actions` feeds its engine.
            for event in try engine.process(DetectedFrame(frame: frame, poses: poses), frameRate: PoseStream.fallbackFrameRate) {
                event.append(to: &text)
                text.newline()
            }
        }
        let now = MonotonicClock.now()
        rate.add(now)
        dropped += newlyDropped
        framesProcessed += 1
        let scene = ViewScene.scene(poseLine: pixelLine, gestures: gestures, engine: engine, pipelineRate: rate.perSecond, dropped: dropped)
        feed.publish(LiveFeed.Frame(index: frame.index, image: frame, arrival: arrivals.arrival(of: frame.index) ?? now, scene: scene))
    }

    /// The end of the frames (or a stop, or `failure`): the last window and the summary, and the
    /// viewers told.
    public mutating func finish(failure: String?) throws {
        defer { feed.end(ViewScene.end(engine: engine, failure: failure)) }
        if let engine {
            var lines = JSONText(capacity: 1024)
            for event in try engine.finish() { event.append(to: &lines); lines.newline() }
            try json.write(lines.bytes)
            try json.endRecord()
        }
        try json.flush()
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
public struct AnySendableFrames: AsyncSequence, Sendable {
    public typealias Element = VideoFrame
    private let make: @Sendable () -> Iterator

    /// `frames`, its type erased.
    public init<Frames: AsyncSequence & Sendable>(_ frames: Frames) where Frames.Element == VideoFrame {
        make = { Iterator(frames.makeAsyncIterator()) }
    }

    public func makeAsyncIterator() -> Iterator { make() }

    /// The frames' iterator, its type erased.
    public struct Iterator: AsyncIteratorProtocol {
        private final class Box<Base: AsyncIteratorProtocol>: @unchecked Sendable where Base.Element == VideoFrame {
            var base: Base
            init(_ base: Base) { self.base = base }
        }
        private let nextFrame: () async throws -> VideoFrame?

        init<Base: AsyncIteratorProtocol>(_ base: Base) where Base.Element == VideoFrame {
            let box = Box(base)
            nextFrame = { try await box.base.next() }
        }

        public mutating func next() async throws -> VideoFrame? { try await nextFrame() }
    }
}

extension AnySendableFrames {
    /// The frames of `source`: a regular file played at its own rate (unless `everyFrame`), a
    /// camera or pipe as it comes.
    public init(source: String, everyFrame: Bool) {
        let media = MediaFrames(path: source)
        if !everyFrame && source != "-" && RegularFile.exists(atPath: source) {
            self.init(PacedFrames(media))
        } else {
            self.init(media)
        }
    }
}
