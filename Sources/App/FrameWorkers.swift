import Foundation
import FrameIO
import PoseCore
import PoseNet

/// Several frames in flight, delivered in order: each worker thread owns a detector, reads the
/// next frame (reading and converting take turns on the one reader), runs the network and the
/// decoder on it, and hands the poses over; the calling thread gets them frame by frame.
///
/// Memory stays bounded: each worker has two slots (the frame it works on, and the one the
/// consumer may still hold), so at most two frames per worker are read ahead.
///
/// Reading errors are thrown after every frame read before them has been delivered. When the
/// consumer stops (it threw, or a stop signal), the workers finish the frame they are running
/// and exit; no worker touches its detector after ``forEachFrame(whileWaiting:_:)`` returns.
final class FrameWorkers: @unchecked Sendable {
    private let source: FrameSource
    private let detectors: [any PoseFinding]

    private let condition = NSCondition()
    /// Finished frames by sequence number (the order they were read in), not yet delivered.
    private var finished: [Int: (slot: PreparedFrame, poses: Result<[Pose], Error>)] = [:]
    /// Sequence number of the next frame read.
    private var nextToRead = 0
    /// Set when the input ended (or failed): frames `0..<end` are all there will be.
    private var end: Int?
    private var readError: Error?
    private var stopped = false
    /// Workers inside their detector (the consumer waits for them before it returns).
    private var detecting = 0
    /// Serializes the reader: one worker reads and converts at a time.
    private let readerLock = NSLock()

    init(source: FrameSource, detectors: [any PoseFinding]) {
        self.source = source
        self.detectors = detectors
    }

    /// Calls `body(frame, poses)` for each frame, in order, on the calling thread.
    /// `whileWaiting` runs when the next frame is not finished yet (see ``FrameSource``).
    func forEachFrame(whileWaiting: () -> Void, _ body: (PreparedFrame, [Pose]) throws -> Void) throws {
        for detector in detectors {
            // Each worker's detector and slots are its own until it hands a slot over under `condition`.
            let worker = Worker(detector: detector, slots: [PreparedFrame(sharing: detector.input), PreparedFrame(sharing: detector.input)])
            let thread = Thread { [self] in work(worker.detector, worker.slots) }
            thread.name = "posekit frame worker"
            thread.start()
        }
        defer { stop() }
        var next = 0
        while let (slot, poses) = take(next, whileWaiting: whileWaiting) {
            defer { release(slot) }
            try body(slot, try poses.get())
            try InputCancellation.check()
            next += 1
        }
        condition.lock()
        let error = readError
        condition.unlock()
        if let error { throw error }
    }

    /// Frame `sequence` once finished; nil when the input ended before it.
    private func take(_ sequence: Int, whileWaiting: () -> Void) -> (PreparedFrame, Result<[Pose], Error>)? {
        condition.lock(); defer { condition.unlock() }
        if finished[sequence] == nil && end.map({ sequence < $0 }) ?? true {
            condition.unlock()
            whileWaiting()
            condition.lock()
        }
        while finished[sequence] == nil && end.map({ sequence < $0 }) ?? true { condition.wait() }
        return finished.removeValue(forKey: sequence)
    }

    private func release(_ slot: PreparedFrame) {
        condition.lock(); defer { condition.unlock() }
        slot.isHeld = false
        condition.broadcast()
    }

    /// Stops the workers and waits until none is inside its detector.
    private func stop() {
        condition.lock(); defer { condition.unlock() }
        stopped = true
        condition.broadcast()
        while detecting > 0 { condition.wait() }
    }

    private struct Worker: @unchecked Sendable {
        let detector: any PoseFinding
        let slots: [PreparedFrame]
    }

    private func work(_ detector: any PoseFinding, _ slots: [PreparedFrame]) {
        var turn = 0
        while true {
            let slot = slots[turn % 2]
            turn += 1
            // Wait until the consumer is done with this slot's previous frame.
            condition.lock()
            while slot.isHeld && !stopped { condition.wait() }
            let go = !stopped && end == nil
            condition.unlock()
            guard go, let sequence = read(into: slot) else { return }
            let poses = Result { try detector.detect(mappingTo: slot.transform, imageSize: (slot.width, slot.height), padding: slot.padding) }
            condition.lock()
            detecting -= 1
            slot.isHeld = true
            finished[sequence] = (slot, poses)
            condition.broadcast()
            condition.unlock()
        }
    }

    /// Reads the next frame into `slot` (and its detector's input); returns its sequence number,
    /// or nil at the end of the input, on an error, or once stopped. On success the caller is
    /// counted in ``detecting``.
    private func read(into slot: PreparedFrame) -> Int? {
        readerLock.lock(); defer { readerLock.unlock() }
        condition.lock()
        let go = !stopped && end == nil
        condition.unlock()
        guard go else { return nil }
        do {
            let more = try source.reader.advance()
            condition.lock(); defer { condition.unlock() }
            guard more, !stopped else {
                end = nextToRead  // only a reader sets `end`, and readers take turns
                condition.broadcast()
                return nil
            }
            // From here the slot and the detector's input are written: the consumer's stop() waits.
            detecting += 1
            let sequence = nextToRead
            nextToRead += 1
            condition.unlock()
            slot.fill(from: source.reader, geometry: source.geometry, scaling: source.scaling, wantsRGB: source.wantsRGB)
            condition.lock()
            return sequence
        } catch {
            condition.lock(); defer { condition.unlock() }
            if end == nil {
                end = nextToRead
                readError = error
            }
            condition.broadcast()
            return nil
        }
    }
}
