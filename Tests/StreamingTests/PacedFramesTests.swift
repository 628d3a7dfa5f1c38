import Foundation
import FrameIO
import PoseCore
import Streaming
import Testing

/// A playback clock the test moves: `wait(until:)` returns once the test has advanced it that
/// far. Each wait is announced (`nextWait()`), so the test knows what the reading task waits for
/// without sleeping.
final class ManualPlayback: PlaybackClock, @unchecked Sendable {
    private let lock = NSLock()
    private var now = 0.0
    private var sleepers: [(time: Double, continuation: CheckedContinuation<Void, Never>)] = []
    private var announced: [Double] = []
    private var listener: CheckedContinuation<Double, Never>?

    func wait(until time: Double) async throws {
        await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
            lock.lock()
            let listener = self.listener
            self.listener = nil
            if listener == nil { announced.append(time) }
            if time <= now {
                lock.unlock()
                listener?.resume(returning: time)
                continuation.resume()
            } else {
                sleepers.append((time, continuation))
                lock.unlock()
                listener?.resume(returning: time)
            }
        }
    }

    /// The time of the next wait the reading task begins (or began and nobody asked yet).
    func nextWait() async -> Double {
        await withCheckedContinuation { continuation in
            lock.lock()
            if !announced.isEmpty {
                let time = announced.removeFirst()
                lock.unlock()
                continuation.resume(returning: time)
            } else {
                listener = continuation
                lock.unlock()
            }
        }
    }

    /// Moves the playback to `time`: the waits it reaches return.
    func advance(to time: Double) {
        lock.lock()
        now = time
        let due = sleepers.filter { $0.time <= time }
        sleepers.removeAll { $0.time <= time }
        lock.unlock()
        for sleeper in due { sleeper.continuation.resume() }
    }
}

/// A model whose worker holds each frame until the test lets it go (`release()`), recording the
/// frames it was given.
final class HeldModel: FrameModel, @unchecked Sendable {
    typealias Output = Int
    let threads = 1
    let frameDependence = FrameDependence.carriesState
    let gate = DispatchSemaphore(value: 0)
    private let lock = NSLock()
    private(set) var processed: [Int] = []
    private var started: [Int] = []
    private var startWaiters: [(Int, CheckedContinuation<Void, Never>)] = []

    /// Returns once the worker has started frame `index`.
    func waitUntilStarted(_ index: Int) async {
        await withCheckedContinuation { continuation in
            lock.lock()
            if started.contains(index) { lock.unlock(); continuation.resume() } else { startWaiters.append((index, continuation)); lock.unlock() }
        }
    }

    fileprivate func start(_ index: Int) {
        lock.lock()
        started.append(index)
        let ready = startWaiters.filter { $0.0 == index }
        startWaiters.removeAll { $0.0 == index }
        lock.unlock()
        for waiter in ready { waiter.1.resume() }
    }

    func makeWorker(threads: Int, smoothing: Bool) throws -> any FrameWorker<Int> { Worker(model: self) }

    func release() { gate.signal() }

    final class Worker: FrameWorker, @unchecked Sendable {
        let model: HeldModel
        init(model: HeldModel) { self.model = model }
        func process(_ frame: VideoFrame) throws -> Int {
            model.start(frame.index)
            model.gate.wait()
            model.lock.lock(); model.processed.append(frame.index); model.lock.unlock()
            return frame.index
        }
    }
}

@Suite struct PacedFramesTests {
    /// Frame n is handed on only once the playback reaches n / 30 s: never earlier.
    @Test func aClipIsHandedOnAtItsFramesTimes() async throws {
        let clock = ManualPlayback()
        let received = Received()
        let consumer = Task {
            for try await frame in PacedFrames(SyntheticFrames(count: 4), clock: clock) { received.add(frame.index) }
        }
        #expect(await clock.nextWait() == 0)                 // frame 0 at time 0: at once
        for index in 1..<4 {
            let due = await clock.nextWait()
            #expect(abs(due - Double(index) / 30) < 1e-12)
            // The reader waits for frame `index`: only the frames before it have been handed on.
            #expect(received.indices == Array(0..<index))
            clock.advance(to: due)
        }
        try await consumer.value
        #expect(received.indices == [0, 1, 2, 3])
    }

    /// A clip played live to a model slower than the clip: the frames that arrive while the model
    /// is busy are dropped but for the newest, never queued (what `posekit view` does).
    @Test func framesArrivingWhileTheModelIsBusyAreDroppedButTheNewest() async throws {
        let clock = ManualPlayback()
        let model = HeldModel()
        let stream = model.outputs(from: PacedFrames(SyntheticFrames(count: 7), clock: clock), dropsLateFrames: true)
        let consumer = Task { () -> [(Int, Int)] in
            var delivered: [(Int, Int)] = []
            for try await processed in stream { delivered.append((processed.output, processed.droppedBefore)) }
            return delivered
        }
        // Frame 0 starts on the worker and is held there; frames 1...5 arrive meanwhile.
        #expect(await clock.nextWait() == 0)
        for index in 1...5 {
            let due = await clock.nextWait()
            #expect(abs(due - Double(index) / 30) < 1e-12)
            clock.advance(to: due)
        }
        // The reader has handed on frame 5 and waits for frame 6: now let frame 0 finish.
        let sixth = await clock.nextWait()
        model.release()
        // Frame 5, the newest of those that arrived, runs next; frame 6 arrives while it runs.
        await model.waitUntilStarted(5)
        clock.advance(to: sixth)
        model.release()
        await model.waitUntilStarted(6)
        model.release()
        let delivered = try await consumer.value
        #expect(delivered.map(\.0) == [0, 5, 6])
        #expect(delivered.map(\.1) == [0, 4, 0])
        #expect(model.processed == [0, 5, 6])
    }
}

/// Indices a consumer task has received, read by the test.
final class Received: @unchecked Sendable {
    private let lock = NSLock()
    private var values: [Int] = []
    func add(_ value: Int) { lock.lock(); values.append(value); lock.unlock() }
    var indices: [Int] { lock.lock(); defer { lock.unlock() }; return values }
}
