import Foundation
import HummingbirdWebSocket
import NIOCore
import PoseCore

/// One viewer's WebSocket: the hello, then frames one at a time (each a JSON text message with
/// the scene, followed by its JPEG as a binary message), the next one only once the page has
/// acknowledged showing the last (`{"type": "shown", "frame": N}`), and always the newest frame
/// then. The page may send nothing else: anything else (binary data, other text, a message over
/// ``maximumMessageBytes``) closes the connection.
struct ViewerConnection {
    let feed: LiveFeed

    /// The longest message a page sends (an acknowledgement is about 30 bytes).
    static let maximumMessageBytes = 256

    func run(inbound: WebSocketInboundStream, outbound: WebSocketOutboundWriter) async throws {
        feed.statistics.connected()
        defer { feed.statistics.disconnected() }
        try await outbound.write(.text(feed.hello))
        let inFlight = FrameInFlight()
        feed.register(inFlight)
        defer { feed.unregister(inFlight) }
        try await withThrowingTaskGroup(of: Void.self) { group in
            group.addTask { try await read(inbound, outbound, inFlight) }
            group.addTask { try await send(outbound, inFlight) }
            // Either side ending (the page gone, a bad message, the server stopping) ends both.
            defer { group.cancelAll() }
            try await group.next()
        }
    }

    /// The page's acknowledgements, until it closes or breaks the protocol.
    private func read(_ inbound: WebSocketInboundStream, _ outbound: WebSocketOutboundWriter, _ inFlight: FrameInFlight) async throws {
        for try await message in inbound.messages(maxSize: Self.maximumMessageBytes) {
            guard case .text(let text) = message, let frame = Self.shownFrame(in: text) else {
                try await outbound.close(.dataInconsistentWithMessage, reason: "expected {\"type\": \"shown\", \"frame\": N}")
                return
            }
            if let arrival = inFlight.acknowledge(frame) {
                feed.statistics.shown(delay: MonotonicClock.now() - arrival)
            }
        }
    }

    /// The frames, newest first, one in flight at a time; the end message as soon as the source
    /// ends (it waits for no acknowledgement).
    private func send(_ outbound: WebSocketOutboundWriter, _ inFlight: FrameInFlight) async throws {
        var number = 0
        var endSent = false
        while true {
            if !endSent, let end = feed.endMessageIfEnded {
                endSent = true
                try await outbound.write(.text(end))
                continue
            }
            if feed.isStopped { return }
            if inFlight.isBusy {
                guard await inFlight.waitUntilAcknowledged() else { return }   // acknowledged, or the end or a stop came
                continue
            }
            switch await feed.next(after: number, endSent: endSent) {
            case .frame(let frame, let published):
                number = published
                let jpeg = try feed.jpeg(of: frame, number: published)
                inFlight.sent(frame.index, arrival: frame.arrival)
                try await outbound.write(.text(message(for: frame, jpegBytes: jpeg.count)))
                try await outbound.writeBinaryMessage(ByteBuffer(bytes: jpeg))
            case .ended:
                continue   // sent at the top of the loop
            case .stopped:
                return
            }
        }
    }

    /// The text message before a frame's JPEG: its index, the viewers' figures, the scene.
    private func message(for frame: LiveFeed.Frame, jpegBytes: Int) -> String {
        let figures = feed.statistics.snapshot(recent: 120)   // the page's figures: the last few seconds
        func milliseconds(_ seconds: Double) -> String { seconds.isNaN ? "null" : String(format: "%.1f", seconds * 1000) }
        return "{\"type\": \"frame\", \"frame\": \(frame.index), \"width\": \(frame.image.width), \"height\": \(frame.image.height), "
            + "\"jpeg_bytes\": \(jpegBytes), \"viewers\": \(figures.viewers), \"shown\": \(figures.framesShown), "
            + "\"delay_ms\": {\"median\": \(milliseconds(figures.delayMedian)), \"p95\": \(milliseconds(figures.delayP95))}, "
            + "\"scene\": \(frame.scene)}"
    }

    /// N of `{"type": "shown", "frame": N}`; nil for anything else.
    static func shownFrame(in text: String) -> Int? {
        guard text.utf8.count <= maximumMessageBytes,
              let object = try? JSONSerialization.jsonObject(with: Data(text.utf8)) as? [String: Any],
              object["type"] as? String == "shown", object.count == 2,
              let number = object["frame"] as? NSNumber, let frame = Int(exactly: number.doubleValue), frame >= 0
        else { return nil }
        return frame
    }
}

/// The frame a viewer has been sent and not yet acknowledged (at most one).
final class FrameInFlight: @unchecked Sendable {
    private let lock = NSLock()
    private var frame: (index: Int, arrival: Double)?
    private var waiter: CheckedContinuation<Bool, Never>?
    /// An interruption that came while nobody waited: the next wait returns at once.
    private var pendingInterrupt = false

    /// `index` was sent; the next frame waits for its acknowledgement.
    func sent(_ index: Int, arrival: Double) {
        lock.lock(); defer { lock.unlock() }
        frame = (index, arrival)
    }

    /// Whether a frame awaits its acknowledgement.
    var isBusy: Bool {
        lock.lock(); defer { lock.unlock() }
        return frame != nil
    }

    /// The page showed `index`: its arrival time when it is the frame in flight (a stale or
    /// unknown frame is ignored).
    func acknowledge(_ index: Int) -> Double? {
        lock.lock()
        guard let frame, frame.index == index else { lock.unlock(); return nil }
        self.frame = nil
        let wake = waiter
        waiter = nil
        lock.unlock()
        wake?.resume(returning: true)
        return frame.arrival
    }

    /// Wakes a wait for the acknowledgement (the source ended, the server stops): the frame
    /// stays in flight.
    func interrupt() {
        lock.lock()
        let wake = waiter
        waiter = nil
        if wake == nil { pendingInterrupt = true }
        lock.unlock()
        wake?.resume(returning: true)
    }

    /// Waits until the frame in flight is acknowledged or the wait is interrupted (true), or the
    /// task is cancelled (false).
    func waitUntilAcknowledged() async -> Bool {
        await withTaskCancellationHandler {
            await withCheckedContinuation { continuation in
                lock.lock()
                if Task.isCancelled {
                    lock.unlock()
                    continuation.resume(returning: false)
                } else if frame == nil || pendingInterrupt {
                    pendingInterrupt = false
                    lock.unlock()
                    continuation.resume(returning: true)
                } else {
                    waiter = continuation
                    lock.unlock()
                }
            }
        } onCancel: {
            lock.lock()
            let wake = waiter
            waiter = nil
            lock.unlock()
            wake?.resume(returning: false)
        }
    }
}
