import Foundation
import FrameIO
import PoseCore
import PoseNet
import Tensor

/// One frame's worth of what the network needs, plus what the outputs need.
final class PreparedFrame {
    /// Network input, `[size, size, 3]` NHWC RGB scaled by the model's ``InputScaling``.
    let input: Tensor
    /// The frame as RGB (filled only when overlays are drawn).
    var rgb = RGBImage()
    var frameIndex = 0
    var time: Double?
    var width = 0, height = 0
    /// Frame pixels → network pixels.
    var scaleX: Float = 1, scaleY: Float = 1
    /// The input rows (columns) the writer filled with padding only, for the network to skip.
    var padding: PaddingBand?
    /// Lets the reader thread read and convert the next frame now (call it once the network
    /// pass on this frame is done, so the two do not compete for the cores); without the call
    /// the reader goes on when the consumer asks for the next frame.
    var readNext: () -> Void = {}
    /// The consumer holds this frame (``FrameWorkers``: its worker may not refill it yet).
    var isHeld = false

    /// A slot with its own input buffer (the reader thread runs ahead of the network).
    init(inputSize: Int) throws { input = try Tensor(zeros: [inputSize, inputSize, 3]) }

    /// A slot that reads straight into a detector's input (which must then be done with the
    /// previous frame).
    init(sharing input: Tensor) { self.input = input }

    /// Network pixels → frame pixels, for the decoded poses.
    var transform: ImageTransform {
        InputPlacement.inputToImage(inputPerImagePixelX: scaleX, inputPerImagePixelY: scaleY)
    }

    /// Reads `reader`'s current frame into this slot.
    func fill(from reader: FrameReader, geometry: NetworkInputWriter.Geometry, scaling: InputScaling, wantsRGB: Bool) {
        frameIndex = reader.frameIndex
        time = reader.timestamp
        width = reader.width
        height = reader.height
        let scales = input.withUnsafeMutableBufferPointer {
            reader.writeNetworkInput(size: input.shape[0], geometry: geometry, scaling: scaling, into: $0)
        }
        scaleX = scales.scaleX
        scaleY = scales.scaleY
        padding = scales.padding
        if wantsRGB { reader.rgb(into: &rgb) }
    }
}

/// Finds the poses in each frame of one input and delivers them to a consumer, in one of three
/// schedules:
/// - **Frames in flight** (video in order, ``FrameDetectors/framesInFlight`` > 1): several
///   frames at once, each on its own detector and share of the cores (``FrameWorkers``), delivered
///   in order. The most frames per second.
/// - **One frame at a time, in order** (images, or one thread): the detector uses every core, and
///   a reader thread prepares the next frame while this one is decoded and written.
/// - **Realtime**: only the newest frame whenever the consumer is ready, dropping the ones that
///   arrived while it was busy, like AVFoundation's `alwaysDiscardsLateVideoFrames`.
///
/// The last two read on their own thread into three rotating slots (one being filled, one
/// waiting, one in use), and memory stays bounded however fast the source is. In realtime mode
/// the reader runs freely and replaces a waiting frame (a drop). In order, it reads frame n+1
/// while frame n is decoded and written: from `slot.readNext()` (called after the network pass)
/// until the consumer takes the frame. Not during the network pass itself, which already uses
/// every core: on 2 cores a third busy thread slows the network's spinning workers down more
/// than the overlap gains. Instead, after the pass the network's helper threads are told to
/// sleep at once (`Parallelism.parkHelpers()`, rather than spin for the next layer that does
/// not come), and the in-order reader converts the frame in two row bands, on both cores
/// (`FrameReader.parallel`): the consumer's decoding takes a fraction of the conversion.
struct FrameSource {
    let reader: FrameReader
    let geometry: NetworkInputWriter.Geometry
    /// Pixel values → network input values (the model's, from its weight bundle).
    let scaling: InputScaling
    let wantsRGB: Bool

    /// Calls `body(frame, poses, droppedSinceLastCall)` for each delivered frame, in order. Errors
    /// from the input are thrown after every frame read before them has been delivered; after a
    /// stop signal (`InputCancellation`) no further frame is delivered and `.interrupted` is thrown.
    ///
    /// `whileWaiting` runs on the calling thread whenever the next frame is not ready yet (a live
    /// stream pausing, or a reader slower than the network): the place to flush buffered output,
    /// so nothing finished waits on the next frame. (Output sinks are not thread-safe, so this
    /// must not happen on another thread.)
    func forEachDetectedFrame(with detectors: FrameDetectors, realtime: Bool, whileWaiting: () -> Void = {},
                              _ body: (PreparedFrame, [Pose], Int) throws -> Void) throws {
        if !realtime && reader.format == .y4m && detectors.framesInFlight > 1 {
            let workers = FrameWorkers(source: self, detectors: try detectors.frameWorkers())
            try workers.forEachFrame(whileWaiting: whileWaiting) { slot, poses in try body(slot, poses, 0) }
            return
        }
        let detector = detectors.primary
        try forEachFrame(into: detector.input, realtime: realtime, whileWaiting: whileWaiting) { slot, dropped in
            let poses = try detector.detect(mappingTo: slot.transform, imageSize: (slot.width, slot.height),
                                            padding: slot.padding, afterNetwork: slot.readNext)
            try body(slot, poses, dropped)
        }
    }

    /// One frame at a time: calls `body(slot, droppedSinceLastCall)` for each delivered frame once
    /// its input is in `networkInput` (`[size, size, 3]`).
    private func forEachFrame(into networkInput: Tensor, realtime: Bool, whileWaiting: () -> Void,
                              _ body: (PreparedFrame, Int) throws -> Void) throws {
        let mailbox = try LatestFrameMailbox(slots: (0..<3).map { _ in try PreparedFrame(inputSize: networkInput.shape[0]) },
                                             dropsLateFrames: realtime)
        let producer = ReaderThread(source: self, mailbox: mailbox, gated: !realtime)
        let thread = Thread { producer.run() }
        thread.stackSize = 1 << 20
        thread.start()
        defer { mailbox.stop() }
        while let (slot, dropped) = mailbox.take(beforeWaiting: whileWaiting) {
            defer { mailbox.recycle(slot) }
            slot.readNext = { [weak mailbox] in
                Parallelism.parkHelpers()  // their core goes to the reader now, not after their spin time
                mailbox?.allowRead()
            }
            networkInput.withUnsafeMutableBufferPointer { dst in
                slot.input.withUnsafeBufferPointer { src in dst.baseAddress!.update(from: src.baseAddress!, count: src.count) }
            }
            try body(slot, dropped)
            try InputCancellation.check()
        }
        if let error = mailbox.readerError { throw error }
    }
}

/// The reader thread: fills slots as fast as the input delivers frames (in order: as fast as
/// the consumer frees them).
private final class ReaderThread: @unchecked Sendable {
    let source: FrameSource
    let mailbox: LatestFrameMailbox
    let gated: Bool
    init(source: FrameSource, mailbox: LatestFrameMailbox, gated: Bool) {
        self.source = source; self.mailbox = mailbox; self.gated = gated
    }

    func run() {
        // In order, the reader runs while the network rests, so it converts on both cores (the
        // consumer's decoding is short); in realtime it runs beside the network, on one core.
        source.reader.parallel = gated
        do {
            var slot = mailbox.firstSlot()
            while gated ? mailbox.waitUntilReadAllowed() : !mailbox.isStopped, try source.reader.advance() {
                slot.fill(from: source.reader, geometry: source.geometry, scaling: source.scaling, wantsRGB: source.wantsRGB)
                guard let next = mailbox.publish(slot) else { break }
                slot = next
            }
            mailbox.finish(error: nil)
        } catch {
            mailbox.finish(error: error)
        }
    }
}

/// Hands frames from the reader thread to the consumer. With `dropsLateFrames` (realtime) an
/// unconsumed frame that is replaced by a newer one counts as dropped; without, the reader
/// waits until the consumer has taken the waiting frame, so every frame is delivered in order.
final class LatestFrameMailbox: @unchecked Sendable {
    private let condition = NSCondition()
    private let dropsLateFrames: Bool
    private var free: [PreparedFrame]
    private var pending: PreparedFrame?
    private var droppedSinceTake = 0
    private var finished = false
    private var stopped = false
    /// In order: the reader may read the next frame (see ``PreparedFrame/readNext``).
    private var readAllowed = true
    private var readerWaiting = false
    private(set) var readerError: Error?

    init(slots: [PreparedFrame], dropsLateFrames: Bool) throws {
        precondition(slots.count >= 3, "the mailbox needs a slot to fill, one pending and one in use")
        free = slots
        self.dropsLateFrames = dropsLateFrames
    }

    var isStopped: Bool { condition.lock(); defer { condition.unlock() }; return stopped }

    func firstSlot() -> PreparedFrame {
        condition.lock(); defer { condition.unlock() }
        return free.removeLast()
    }

    /// Publishes a filled slot; returns the slot to fill next (in order: after the previous
    /// frame has been taken; nil once the consumer has stopped).
    func publish(_ slot: PreparedFrame) -> PreparedFrame? {
        condition.lock(); defer { condition.unlock() }
        if !dropsLateFrames {
            while pending != nil && !stopped { condition.wait() }
            if stopped { return nil }
        }
        let next: PreparedFrame
        if let stale = pending {
            droppedSinceTake += 1
            next = stale
        } else {
            // Three slots: at most one pending and one with the consumer, so one is free.
            next = free.removeLast()
        }
        pending = slot
        condition.broadcast()
        return next
    }

    /// The newest frame and how many were dropped before it; nil when the input has ended.
    /// `beforeWaiting` runs (unlocked, on the caller's thread) when no frame is ready yet.
    func take(beforeWaiting: () -> Void = {}) -> (PreparedFrame, Int)? {
        condition.lock(); defer { condition.unlock() }
        if pending == nil && !finished {
            condition.unlock()
            beforeWaiting()
            condition.lock()
        }
        if pending == nil && readerWaiting {
            readAllowed = true   // the consumer waits anyway: reading now costs it nothing
            condition.broadcast()
        }
        while pending == nil && !finished { condition.wait() }
        guard let slot = pending else { return nil }
        pending = nil
        let dropped = droppedSinceTake
        droppedSinceTake = 0
        condition.broadcast()   // an in-order reader waits for the pending frame to be taken
        return (slot, dropped)
    }

    /// Lets an in-order reader read the next frame.
    func allowRead() {
        condition.lock(); defer { condition.unlock() }
        readAllowed = true
        condition.broadcast()
    }

    /// Waits until the next frame may be read; false once the consumer has stopped.
    func waitUntilReadAllowed() -> Bool {
        condition.lock(); defer { condition.unlock() }
        readerWaiting = true
        while !readAllowed && !stopped { condition.wait() }
        readerWaiting = false
        readAllowed = false
        return !stopped
    }

    func recycle(_ slot: PreparedFrame) {
        condition.lock(); defer { condition.unlock() }
        free.append(slot)
    }

    func finish(error: Error?) {
        condition.lock(); defer { condition.unlock() }
        finished = true
        readerError = error
        condition.signal()
    }

    /// Asks the reader to stop after its current frame (the consumer is done or failed).
    func stop() {
        condition.lock(); defer { condition.unlock() }
        stopped = true
        condition.broadcast()
    }
}
