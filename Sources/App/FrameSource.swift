import Foundation
import FrameIO
import PoseNet
import Tensor

/// One frame's worth of what the network needs, plus what the outputs need.
final class FrameSlot {
    /// Network input, `[size, size, 3]` NHWC RGB in [-1, 1].
    let input: Tensor
    /// The frame as RGB (filled only when overlays are drawn).
    var rgb = RGBImage()
    var frameIndex = 0
    var time: Double?
    var width = 0, height = 0
    /// Frame pixels → network pixels.
    var scaleX: Float = 1, scaleY: Float = 1

    /// A slot that converts frames straight into `input` (the network's own input tensor).
    init(input: Tensor) { self.input = input }

    /// A slot with its own input buffer (realtime mode, where the reader runs ahead).
    init(inputSize: Int) throws { input = try Tensor(zeros: [inputSize, inputSize, 3]) }

    /// Network pixels → frame pixels, for the decoded poses.
    var transform: ImageTransform {
        ImageTransform(scaleX: 1 / Double(scaleX), scaleY: 1 / Double(scaleY))
    }

    /// Reads `reader`'s current frame into this slot.
    func fill(from reader: FrameReader, geometry: NetworkInputWriter.Geometry, wantsRGB: Bool) {
        frameIndex = reader.frameIndex
        time = reader.timestamp
        width = reader.width
        height = reader.height
        let scales = input.withUnsafeMutableBufferPointer {
            reader.writeNetworkInput(size: input.shape[0], geometry: geometry, into: $0)
        }
        scaleX = scales.scaleX
        scaleY = scales.scaleY
        if wantsRGB { reader.rgb(into: &rgb) }
    }
}

/// Delivers the frames of one input to a consumer, either every frame in order, or (realtime)
/// only the newest frame whenever the consumer is ready, dropping the ones that arrived while
/// it was busy, like AVFoundation's `alwaysDiscardsLateVideoFrames`.
///
/// Realtime mode reads on its own thread into three rotating slots, so memory stays bounded
/// however fast the source is.
struct FrameSource {
    let reader: FrameReader
    /// The network's input tensor, `[size, size, 3]`: holds the delivered frame when `body` runs.
    let networkInput: Tensor
    let geometry: NetworkInputWriter.Geometry
    let wantsRGB: Bool

    /// Calls `body(slot, droppedSinceLastCall)` for each delivered frame. Errors from the input
    /// are thrown after every frame read before them has been delivered; after a stop signal
    /// (`InputCancellation`) no further frame is delivered and `.interrupted` is thrown.
    func forEachFrame(realtime: Bool, _ body: (FrameSlot, Int) throws -> Void) throws {
        if !realtime {
            let slot = FrameSlot(input: networkInput)
            while try reader.advance() {
                slot.fill(from: reader, geometry: geometry, wantsRGB: wantsRGB)
                try body(slot, 0)
                try InputCancellation.check()  // a stop signal: no new frame after this one
            }
            return
        }
        let mailbox = try LatestFrameMailbox(slots: (0..<3).map { _ in try FrameSlot(inputSize: networkInput.shape[0]) })
        let producer = ReaderThread(source: self, mailbox: mailbox)
        let thread = Thread { producer.run() }
        thread.stackSize = 1 << 20
        thread.start()
        defer { mailbox.stop() }
        while let (slot, dropped) = mailbox.take() {
            defer { mailbox.recycle(slot) }
            networkInput.withUnsafeMutableBufferPointer { dst in
                slot.input.withUnsafeBufferPointer { src in dst.baseAddress!.update(from: src.baseAddress!, count: src.count) }
            }
            try body(slot, dropped)
            try InputCancellation.check()
        }
        if let error = mailbox.readerError { throw error }
    }
}

/// The realtime reader: fills slots as fast as the input delivers frames.
private final class ReaderThread: @unchecked Sendable {
    let source: FrameSource
    let mailbox: LatestFrameMailbox
    init(source: FrameSource, mailbox: LatestFrameMailbox) { self.source = source; self.mailbox = mailbox }

    func run() {
        do {
            var slot = mailbox.firstSlot()
            while !mailbox.isStopped, try source.reader.advance() {
                slot.fill(from: source.reader, geometry: source.geometry, wantsRGB: source.wantsRGB)
                slot = mailbox.publish(slot)
            }
            mailbox.finish(error: nil)
        } catch {
            mailbox.finish(error: error)
        }
    }
}

/// Hands the newest frame from the reader thread to the consumer; an unconsumed frame that is
/// replaced by a newer one counts as dropped.
final class LatestFrameMailbox: @unchecked Sendable {
    private let condition = NSCondition()
    private var free: [FrameSlot]
    private var pending: FrameSlot?
    private var droppedSinceTake = 0
    private var finished = false
    private var stopped = false
    private(set) var readerError: Error?

    init(slots: [FrameSlot]) throws {
        precondition(slots.count >= 3, "the mailbox needs a slot to fill, one pending and one in use")
        free = slots
    }

    var isStopped: Bool { condition.lock(); defer { condition.unlock() }; return stopped }

    func firstSlot() -> FrameSlot {
        condition.lock(); defer { condition.unlock() }
        return free.removeLast()
    }

    /// Publishes a filled slot; returns the slot to fill next.
    func publish(_ slot: FrameSlot) -> FrameSlot {
        condition.lock(); defer { condition.unlock() }
        let next: FrameSlot
        if let stale = pending {
            droppedSinceTake += 1
            next = stale
        } else {
            next = free.removeLast()
        }
        pending = slot
        condition.signal()
        return next
    }

    /// The newest frame and how many were dropped before it; nil when the input has ended.
    func take() -> (FrameSlot, Int)? {
        condition.lock(); defer { condition.unlock() }
        while pending == nil && !finished { condition.wait() }
        guard let slot = pending else { return nil }
        pending = nil
        let dropped = droppedSinceTake
        droppedSinceTake = 0
        return (slot, dropped)
    }

    func recycle(_ slot: FrameSlot) {
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
    }
}
