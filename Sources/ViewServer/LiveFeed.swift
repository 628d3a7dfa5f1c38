import Foundation
import FrameIO
import PoseCore

/// The frames and results a live view shows, handed from the pipeline to every viewer.
///
/// The pipeline ``publish(_:)``es each frame it has processed with the scene the page draws on
/// it (JSON): that only replaces the newest frame and wakes the viewers waiting for one, so it
/// never waits for a viewer, however slow. Each viewer's connection takes the newest frame when
/// it is ready for one (the page has shown the last frame it was sent), so a slow or stalled
/// viewer skips frames instead of queueing them, and never holds back the pipeline or another
/// viewer. A frame is encoded as JPEG once, by the first viewer that takes it, and only if one
/// does.
public final class LiveFeed: @unchecked Sendable {
    /// One processed frame as the pipeline hands it over.
    public struct Frame: Sendable {
        /// The frame's index in its stream.
        public var index: Int
        /// Its pixels.
        public var image: VideoFrame
        /// When it arrived from the source: `MonotonicClock` seconds. The page's acknowledgement
        /// of having shown it gives the arrival-to-display delay.
        public var arrival: Double
        /// What the page draws on it: one JSON object (people, hands, gestures, action, summary).
        public var scene: String

        public init(index: Int, image: VideoFrame, arrival: Double, scene: String) {
            self.index = index
            self.image = image
            self.arrival = arrival
            self.scene = scene
        }
    }

    /// What a viewer's connection gets when it asks for the next frame.
    enum Update {
        /// A frame newer than the last one taken, with its publication number.
        case frame(Frame, number: Int)
        /// The source has ended: the final message (JSON object), once.
        case ended(String)
        /// The server is stopping.
        case stopped
    }

    /// The first message every viewer gets (JSON object): the keypoint sets, colours and settings.
    public let hello: String
    /// The JPEG quality of the frames sent.
    public let quality: Int

    private let lock = NSLock()
    private var latest: Frame?
    /// Publications so far (the newest frame's number).
    private var published = 0
    private var endMessage: String?
    private var stopped = false
    private var waiting: [Int: CheckedContinuation<Void, Never>] = [:]
    /// Each viewer's frame in flight.
    private var inFlight: [ObjectIdentifier: FrameInFlight] = [:]
    private var nextWaiter = 0

    /// The newest frame's JPEG, by publication number (encoded under `encoding`, at most once).
    private var encoded: (number: Int, bytes: [UInt8])?
    private let encoding = NSLock()

    /// What the viewers have shown.
    let statistics = ViewerStatistics()

    public init(hello: String, quality: Int = JPEG.defaultQuality) {
        self.hello = hello
        self.quality = quality
    }

    // MARK: The pipeline

    /// Makes `frame` the newest frame (the one before it, if no viewer took it, is skipped) and
    /// wakes the viewers waiting. Never waits for a viewer.
    public func publish(_ frame: Frame) {
        lock.lock()
        guard !stopped, endMessage == nil else { lock.unlock(); return }
        latest = frame
        published += 1
        let wake = takeWaiting()
        lock.unlock()
        for continuation in wake { continuation.resume() }
    }

    /// The source has ended: every viewer gets `message` (a JSON object: the final summary) after
    /// the last frame, and the page keeps showing them.
    public func end(_ message: String) {
        lock.lock()
        guard endMessage == nil else { lock.unlock(); return }
        endMessage = message
        let wake = takeWaiting()
        let interrupted = Array(inFlight.values)
        lock.unlock()
        for continuation in wake { continuation.resume() }
        // The end message does not wait for a viewer to acknowledge its last frame.
        for frame in interrupted { frame.interrupt() }
    }

    /// Every viewer's connection ends (the server is stopping).
    public func stop() {
        lock.lock()
        stopped = true
        let wake = takeWaiting()
        let interrupted = Array(inFlight.values)
        lock.unlock()
        for continuation in wake { continuation.resume() }
        for frame in interrupted { frame.interrupt() }
    }

    /// The source's end message, once there is one.
    var endMessageIfEnded: String? {
        lock.lock(); defer { lock.unlock() }
        return endMessage
    }

    /// Whether the server is stopping.
    var isStopped: Bool {
        lock.lock(); defer { lock.unlock() }
        return stopped
    }

    /// A viewer's frame in flight, interrupted by ``end(_:)`` and ``stop()`` while registered.
    func register(_ frame: FrameInFlight) {
        lock.lock(); defer { lock.unlock() }
        inFlight[ObjectIdentifier(frame)] = frame
    }

    func unregister(_ frame: FrameInFlight) {
        lock.lock(); defer { lock.unlock() }
        inFlight[ObjectIdentifier(frame)] = nil
    }

    /// The frames shown so far and their delays.
    public func snapshot() -> ViewerStatistics.Snapshot { statistics.snapshot() }

    // MARK: The viewers

    /// The next update after publication `number` (0: none taken yet); waits for one. A
    /// cancelled task stops waiting and gets ``Update/stopped``.
    func next(after number: Int, endSent: Bool) async -> Update {
        while true {
            if Task.isCancelled { return .stopped }
            if let update = ready(after: number, endSent: endSent) { return update }
            let key = newWaiterKey()
            await withTaskCancellationHandler {
                await withCheckedContinuation { continuation in
                    wait(key, continuation, after: number, endSent: endSent)
                }
            } onCancel: {
                resumeWaiter(key)
            }
        }
    }

    /// The update there is for a viewer at publication `number`, or nil (it must wait).
    private func ready(after number: Int, endSent: Bool) -> Update? {
        lock.lock(); defer { lock.unlock() }
        // The end message goes out even when the server is stopping right after the source ended.
        if let endMessage, !endSent, stopped || published <= number { return .ended(endMessage) }
        if stopped { return .stopped }
        if let latest, published > number { return .frame(latest, number: published) }
        return nil
    }

    private func newWaiterKey() -> Int {
        lock.lock(); defer { lock.unlock() }
        nextWaiter += 1
        return nextWaiter
    }

    /// Parks `continuation` until the next publication, end or stop; resumes it at once when one
    /// came (or the task was cancelled) since ``ready(after:endSent:)`` looked.
    private func wait(_ key: Int, _ continuation: CheckedContinuation<Void, Never>, after number: Int, endSent: Bool) {
        lock.lock()
        if stopped || Task.isCancelled || published > number || (endMessage != nil && !endSent) {
            lock.unlock()
            continuation.resume()
        } else {
            waiting[key] = continuation
            lock.unlock()
        }
    }

    private func resumeWaiter(_ key: Int) {
        lock.lock()
        let continuation = waiting.removeValue(forKey: key)
        lock.unlock()
        continuation?.resume()
    }

    /// The JPEG of `frame`, publication `number`: encoded once for every viewer that takes it.
    func jpeg(of frame: Frame, number: Int) throws -> [UInt8] {
        encoding.lock()
        defer { encoding.unlock() }
        if let encoded, encoded.number == number { return encoded.bytes }
        let bytes = try JPEG.encode(frame.image, quality: quality)
        encoded = (number, bytes)
        return bytes
    }

    /// Called with `lock` held.
    private func takeWaiting() -> [CheckedContinuation<Void, Never>] {
        let wake = Array(waiting.values)
        waiting.removeAll()
        return wake
    }
}
