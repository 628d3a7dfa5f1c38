import Foundation
import FrameIO
import PoseCore
import Streaming
import Testing
import TestSupport

/// A model whose pass on a frame waits at that frame's gate until the test opens it, and
/// returns the frame's index: the test decides when each frame is done, so what the stream does
/// meanwhile (reads ahead, drops, holds back) follows from events alone, never from timing.
final class GatedModel: FrameModel, @unchecked Sendable {
    let threads: Int
    let frameDependence = FrameDependence.independent
    private let lock = NSLock()
    private var gates: [Int: Gate] = [:]
    /// Passes started, one per frame a worker took.
    let started = EventCounter()

    init(threads: Int) { self.threads = threads }

    /// Frame `index`'s gate (made closed on first use).
    func gate(_ index: Int) -> Gate {
        lock.lock(); defer { lock.unlock() }
        if let gate = gates[index] { return gate }
        let gate = Gate()
        gates[index] = gate
        return gate
    }

    /// Opens the gates of `indices`.
    func open(_ indices: some Sequence<Int>) { for index in indices { gate(index).open() } }

    func makeWorker(threads: Int, smoothing: Bool) throws -> any FrameWorker<Int> { Worker(model: self) }

    final class Worker: FrameWorker, @unchecked Sendable {
        let model: GatedModel
        init(model: GatedModel) { self.model = model }
        func process(_ frame: VideoFrame) throws -> Int {
            model.started.add()
            model.gate(frame.index).pass()
            return frame.index
        }
    }
}

/// Frames made in memory that count how many the stream has asked for: `beforeFrame(n)` runs
/// (and may wait for an event) before frame `n` is handed out, `atEnd` when the stream asks past
/// the last one (the reader has handed every frame over).
struct CountedSyntheticFrames: AsyncSequence, Sendable {
    typealias Element = VideoFrame
    let count: Int
    let requested: EventCounter
    var beforeFrame: @Sendable (Int) async -> Void = { _ in }
    var atEnd: @Sendable () -> Void = {}

    struct AsyncIterator: AsyncIteratorProtocol {
        let frames: CountedSyntheticFrames
        var index = 0
        mutating func next() async throws -> VideoFrame? {
            guard index < frames.count else {
                frames.atEnd()
                return nil
            }
            defer { index += 1 }
            await frames.beforeFrame(index)
            frames.requested.add()
            return VideoFrame(image: RGBImage(width: 4, height: 4), index: index, time: Double(index) / 30,
                              frameRate: Ratio(30, 1), isStillImage: false)
        }
    }

    func makeAsyncIterator() -> AsyncIterator { AsyncIterator(frames: self) }
}

/// The frame schedule (`FrameSchedule`: reading ahead, frames in flight, late frames dropped)
/// driven by events: a gated model and counted frames stand in for a slow network and a camera.
@Suite(.timeLimit(.minutes(10))) struct FrameScheduleTests {
    /// A live source (`dropsLateFrames`): every frame arrives while frame 0 is processed. The
    /// reader never waits for the worker or the consumer (the last frame is handed over while
    /// frame 0 is still held), frames 1...22 are dropped and counted (a newer one replaces the one
    /// waiting), and the newest, 23, is processed: exactly frames 0 and 23, 22 dropped.
    @Test func lateFramesAreDroppedAndCountedAndTheNewestIsKept() async throws {
        let model = GatedModel(threads: 1)
        let frameCount = 24
        // The gate of frame 0 opens only once the reader has handed the last frame over: a
        // reader that waited for the worker (or for the consumer) would never get there.
        let frames = CountedSyntheticFrames(count: frameCount, requested: EventCounter(), atEnd: { model.open(0..<frameCount) })
        var indices: [Int] = [], dropped = 0
        for try await processed in model.outputs(from: frames, dropsLateFrames: true) {
            #expect(processed.output == processed.frame.index)
            indices.append(processed.frame.index)
            dropped += processed.droppedBefore
        }
        #expect(indices == [0, frameCount - 1])
        #expect(dropped == frameCount - 2)
        #expect(model.started.count == 2)
    }

    /// Frames that come while the consumer holds on to its last result are still read, and the
    /// frames read while the worker is busy are dropped, not queued: the consumer takes frame 0
    /// and then waits for the reader to reach the end of the input before asking for more. The
    /// input hands frame 1 out once frame 0 is taken, and frames 2... once frame 1 runs (held at
    /// its gate), so 2...8 replace one another in the one waiting slot and 9 is kept.
    @Test func aLiveSourceIsReadWhileTheConsumerWaits() async throws {
        let model = GatedModel(threads: 1)
        model.open([0])
        let frameCount = 10
        let taken = EventCounter(), ended = EventCounter()
        let frames = CountedSyntheticFrames(count: frameCount, requested: EventCounter(), beforeFrame: { index in
            if index == 1 { await taken.wait(forAtLeast: 1) }
            if index == 2 { await model.started.wait(forAtLeast: 2) }
        }, atEnd: { ended.add() })
        var iterator = model.outputs(from: frames, dropsLateFrames: true).makeAsyncIterator()
        let first = try #require(try await iterator.next())
        #expect(first.frame.index == 0 && first.droppedBefore == 0)
        taken.add()
        await ended.wait(forAtLeast: 1)
        model.open(1..<frameCount)
        var indices: [Int] = [], dropped = 0
        while let processed = try await iterator.next() {
            indices.append(processed.frame.index)
            dropped += processed.droppedBefore
        }
        #expect(indices == [1, frameCount - 1])
        #expect(dropped == frameCount - 3, "frames 2...8 dropped")
    }

    /// In order (a file): two frames in flight and a consumer that takes one frame and then stops.
    /// The workers go on without the consumer but no further than one frame more than the
    /// workers untaken (frames 1, 2, 3), and the reader holds one more frame (4) waiting to
    /// start: the input is asked for exactly 5 frames until the consumer takes the next.
    @Test func aSlowConsumerHoldsTheReaderBack() async throws {
        let model = GatedModel(threads: 2)
        model.open(0..<12)
        let requested = EventCounter()
        let frames = CountedSyntheticFrames(count: 12, requested: requested)
        var iterator = model.outputs(from: frames, framesInFlight: 2).makeAsyncIterator()
        var taken = 0
        if try await iterator.next() != nil { taken += 1 }
        await requested.wait(forAtLeast: 5)
        await model.started.wait(forAtLeast: 4)
        #expect(requested.count == 5, "the reader went \(requested.count - taken) frames ahead of the consumer")
        #expect(model.started.count == 4)
        while let processed = try await iterator.next() {
            #expect(processed.frame.index == taken && processed.droppedBefore == 0)
            taken += 1
        }
        #expect(taken == 12 && requested.count == 12)
    }

    /// In order, the reader reads the next frame while a frame is processed (one worker, as a
    /// model that carries state gets): frame 0 is held at its gate until frame 1 has been read.
    /// A stream that read only once the last frame was done would never release it.
    @Test func theNextFrameIsReadWhileOneIsProcessed() async throws {
        let model = GatedModel(threads: 1)
        let requested = EventCounter()
        let frames = CountedSyntheticFrames(count: 3, requested: requested, beforeFrame: { index in
            if index == 1 { await model.started.wait(forAtLeast: 1) }
        })
        let opener = Task {
            await requested.wait(forAtLeast: 2)
            model.open(0..<3)
        }
        var indices: [Int] = []
        for try await processed in model.outputs(from: frames) { indices.append(processed.output) }
        await opener.value
        #expect(indices == [0, 1, 2])
    }
}
