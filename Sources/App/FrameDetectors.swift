import PoseNet

/// The detectors a command runs its frames through: one on every thread, and, for video read in
/// order, one per frame in flight.
///
/// A forward pass split over the cores forks and joins them at each of its ~15 layers, and a
/// frame's conversion and decoding leave a core idle; two frames in flight, each on its own
/// core, keep both busy and finish more frames per second (about 1.2× on 2 cores at 257). Each
/// frame then takes longer from read to write, so images (one frame) and `--realtime` streams
/// (the newest frame, as soon as possible) use ``primary``, on every thread.
final class FrameDetectors {
    /// The detector on every thread, for one frame at a time.
    let primary: any PoseFinding
    /// Threads in all: ``primary``'s, and the workers' together.
    let threads: Int
    /// How many frames in-order video keeps in flight (1: one at a time, on ``primary``).
    let framesInFlight: Int
    private var workers: [any PoseFinding]?

    /// `primary` runs on `threads` cores; the workers are made from it on first use.
    /// `framesInFlight` defaults to one frame per thread.
    init(primary: any PoseFinding, threads: Int, framesInFlight: Int? = nil) {
        self.primary = primary
        self.threads = threads
        self.framesInFlight = PoseDetector.framesInFlight(requested: framesInFlight, threads: threads)
    }

    /// ``framesInFlight`` detectors sharing ``threads`` between them and ``primary``'s weights
    /// (built once; each has only its own activations).
    func frameWorkers() throws -> [any PoseFinding] {
        if let workers { return workers }
        let made = try PoseDetector.workerThreadShares(frames: framesInFlight, threads: threads).map { try primary.sharingWeights(threads: $0) }
        workers = made
        return made
    }
}
