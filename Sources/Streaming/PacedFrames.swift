import FrameIO
import PoseCore

/// A recorded clip played as a live source: each frame is handed on when the playback reaches
/// its time (``/FrameIO/VideoFrame/time``, seconds from the first frame; a stream without a frame rate at
/// `PoseStream.fallbackFrameRate`), never earlier, so a model that keeps up sees the clip at its
/// own frame rate and one that cannot has late frames dropped (`dropsLateFrames`), as with a
/// camera. Frames that are decoded late are handed on at once (the playback does not wait to
/// catch up).
///
///     let live = PacedFrames(MediaFrames(path: "clip.mp4"))
///     for try await frame in detector.poses(from: live, dropsLateFrames: true) { ... }
///
/// The clock is ``PlaybackClock``: ``RealTimePlayback`` (the machine's monotonic clock) by
/// default; a test passes one it advances itself.
public struct PacedFrames<Frames: AsyncSequence & Sendable>: AsyncSequence, Sendable where Frames.Element == VideoFrame {
    public typealias Element = VideoFrame

    let frames: Frames
    let clock: any PlaybackClock

    public init(_ frames: Frames, clock: any PlaybackClock = RealTimePlayback()) {
        self.frames = frames
        self.clock = clock
    }

    public func makeAsyncIterator() -> Iterator { Iterator(base: frames.makeAsyncIterator(), clock: clock) }

    /// Hands on each frame at its time.
    public struct Iterator: AsyncIteratorProtocol {
        var base: Frames.AsyncIterator
        let clock: any PlaybackClock

        public mutating func next() async throws -> VideoFrame? {
            guard let frame = try await base.next() else { return nil }
            try await clock.wait(until: Self.playbackTime(of: frame))
            return frame
        }

        /// The frame's time in the playback: its own, or its index at the fallback frame rate.
        static func playbackTime(of frame: VideoFrame) -> Double {
            frame.time ?? Double(frame.index) / PoseStream.fallbackFrameRate
        }
    }
}

/// The clock a ``PacedFrames`` playback runs on.
public protocol PlaybackClock: Sendable {
    /// Returns once the playback has reached `time` (seconds from its start, which the first call
    /// sets); throws when the playback is to stop instead.
    func wait(until time: Double) async throws
}

/// Playback on the machine's monotonic clock (`MonotonicClock`), started by the first frame. A
/// stop signal (`InputCancellation`) ends a wait within 50 ms with `FrameIOError.interrupted`.
public final class RealTimePlayback: PlaybackClock, @unchecked Sendable {
    private var start: Double?

    public init() {}

    public func wait(until time: Double) async throws {
        // Called by one reading task at a time: no lock needed.
        let start = self.start ?? MonotonicClock.now()
        self.start = start
        while true {
            try InputCancellation.check()
            let left = start + time - MonotonicClock.now()
            guard left > 0 else { return }
            try await Task.sleep(nanoseconds: UInt64(min(left, 0.05) * 1e9))
        }
    }
}
