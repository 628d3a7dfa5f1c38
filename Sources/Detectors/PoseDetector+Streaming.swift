import Streaming

extension PoseDetector {
    /// The most frames a stream keeps in flight (`FramesInFlight.maximum`).
    public static let maxFramesInFlight = FramesInFlight.maximum

    /// How many frames a stream keeps in flight on `threads` threads when `requested` are asked
    /// for (`FramesInFlight.count(requested:threads:)`): one per thread when nil, never more than
    /// the threads nor ``maxFramesInFlight``, and at least one.
    public static func framesInFlight(requested: Int?, threads: Int) -> Int {
        FramesInFlight.count(requested: requested, threads: threads)
    }

    /// The threads of each of `frames` frames in flight (`FramesInFlight.threadShares(frames:threads:)`):
    /// `threads` split as evenly as they go, the first frames one more (5 threads on 2 frames: `[3, 2]`).
    public static func workerThreadShares(frames: Int, threads: Int) -> [Int] {
        FramesInFlight.threadShares(frames: frames, threads: threads)
    }
}
