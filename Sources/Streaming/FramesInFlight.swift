/// How many frames a stream keeps in flight and each one's share of the threads: one rule for
/// every model (`PoseDetector.framesInFlight(requested:threads:)` forwards here).
public enum FramesInFlight {
    /// The most frames a stream keeps in flight: more would only add latency and a model's
    /// activations each.
    public static let maximum = 8

    /// How many frames a stream keeps in flight on `threads` threads when `requested` are asked
    /// for: one per thread when nil, never more than the threads (each frame has at least one)
    /// nor ``maximum``, and at least one.
    public static func count(requested: Int?, threads: Int) -> Int {
        max(1, min(requested ?? threads, threads, maximum))
    }

    /// The threads of each of `frames` frames in flight: `threads` split as evenly as they go,
    /// the first frames one more where they do not divide (5 threads on 2 frames: `[3, 2]`).
    public static func threadShares(frames: Int, threads: Int) -> [Int] {
        let base = threads / frames, extra = threads % frames
        return (0..<frames).map { base + ($0 < extra ? 1 : 0) }
    }
}
