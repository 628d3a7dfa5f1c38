import PoseCore
import FrameIO

extension PoseDetector {
    /// The poses of every frame of a video stream, as an `AsyncSequence`, with the identities
    /// and smoothing `posekit pose` gives video:
    ///
    ///     let detector = try PoseDetector(model: .mobilenet075)
    ///     for try await frame in detector.poses(from: Y4MFrameSequence(path: "clip.y4m")) {
    ///         for (id, pose) in zip(frame.ids ?? [], frame.poses) { print(frame.frame, id, pose[.nose].position) }
    ///     }
    ///
    /// Frames are pulled from `frames` one at a time, when the consumer asks for the next result,
    /// so a slow consumer slows the reading down (no frame is read ahead). Each network pass runs
    /// on a dispatch thread, not on the Swift concurrency pool.
    ///
    /// - Parameter smoothing: One-Euro smoothing of the keypoints over time (`posekit pose`'s
    ///   default); pass false for the raw per-frame positions (what `ActionRecognizer` expects).
    public func poses<Frames: AsyncSequence>(from frames: Frames, smoothing: Bool = true) -> PoseDetectionSequence<Frames>
    where Frames.Element == VideoFrame {
        PoseDetectionSequence(detector: self, frames: frames, smoothing: smoothing)
    }
}

/// The per-frame results of ``PoseDetector/poses(from:smoothing:)``: a `PoseFrame` per video frame,
/// with `ids`; a stream without a frame rate (Y4M `F0:0`) is timed at 30 frames/s
/// (`PoseStream.fallbackFrameRate`). Each iteration tracks its own identities (they start at 1).
public struct PoseDetectionSequence<Frames: AsyncSequence>: AsyncSequence where Frames.Element == VideoFrame {
    public typealias Element = PoseFrame

    let detector: PoseDetector
    let frames: Frames
    let smoothing: Bool

    public func makeAsyncIterator() -> Iterator {
        Iterator(detector: detector, frames: frames.makeAsyncIterator(), stream: PoseStream(smoothing: smoothing))
    }

    public struct Iterator: AsyncIteratorProtocol {
        let detector: PoseDetector
        var frames: Frames.AsyncIterator
        var stream: PoseStream

        /// The next frame's poses, or nil when the frames have ended.
        public mutating func next() async throws -> PoseFrame? {
            guard let frame = try await frames.next() else { return nil }
            let found = try await detector.posesOffPool(in: frame)
            let (poses, ids) = stream.process(found, frameIndex: frame.index, time: frame.time)
            return PoseFrame(frame: frame.index, time: PoseStream.trackingTime(frameIndex: frame.index, time: frame.time),
                             width: frame.width, height: frame.height, poses: poses, ids: ids)
        }
    }
}

extension PoseDetectionSequence: Sendable where Frames: Sendable {}
