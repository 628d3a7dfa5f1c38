import ArgumentParser
import Foundation
import KernelBenchmarks
import PoseKit
import LiveView

/// `posekit bench view`: what watching costs. `posekit view`'s loop over a clip held in memory,
/// with 0, 1 and 4 viewers (in-process WebSocket clients that decode each JPEG, as a browser
/// does, and acknowledge it), interleaved, for the pose, pose --hands and actions pipelines.
struct BenchView: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "view",
        abstract: "posekit view's cost: frames/s of the pipeline with 0, 1 and 4 viewers, frames shown, arrival-to-display delay.",
        discussion: """
            The clip's first --frames frames are decoded into memory once (no ffmpeg while timing). \
            Each run is `posekit view`'s loop (the pipeline, the JSON Lines to /dev/null, each \
            frame's scene handed to the viewers) with N viewers connected over loopback: clients \
            of the server's WebSocket that decode every JPEG they get with libjpeg (a browser's \
            work for a frame, less its drawing) and acknowledge it, which is what lets the server \
            send the next (newest) frame (--no-viewers-decode: clients that only acknowledge, a \
            browser on another machine; the server's cost alone). Runs are interleaved: round by round, every pipeline \
            with every viewer count, so a slow phase of the host touches them all.

            By default the frames are processed as fast as the pipeline goes, each one (as \
            --every-frame): the pipeline's frames/s with N viewers against 0 is the viewers' cost. \
            --live plays them at the clip's frame rate as a live source (late frames dropped): \
            the frames shown and the delay a viewer of a camera sees.

            Reported per pipeline and viewer count: the pipeline's frames/s (median over rounds) \
            and its ratio to the same round's run without viewers (median of the rounds' ratios), \
            frames shown per second per viewer, and the delay from a frame's arrival (read from the \
            source) to a viewer's acknowledgement: median and 95th percentile over every frame shown.

            EXAMPLES
              posekit bench view
              posekit bench view --pipelines pose --viewers 0 1 4 --rounds 5
              posekit bench view --live --frames 300
            """)

    @Argument(help: "A video (default: ../shared's squat clip).", completion: .file())
    var clip: String?

    @Option(parsing: .upToNextOption, help: "Pipelines: pose, hands (pose --hands), actions (pose and ActionNet).")
    var pipelines: [String] = ["pose", "hands", "actions"]

    @Option(parsing: .upToNextOption, help: "Viewer counts (0...16); 0 is the baseline.")
    var viewers: [Int] = [0, 1, 4]

    @Option(help: "Frames per run (\(Limits.benchFrames.text)).")
    var frames = 150

    @Option(help: "Rounds (\(Limits.benchRounds.text)).")
    var rounds = 3

    @Option(help: "Threads for the networks (\(Limits.threads.text)).")
    var threads = 2

    @Flag(help: "Play the frames at the clip's rate, dropping late ones (a live source) instead of processing every frame.")
    var live = false

    @Flag(inversion: .prefixedNo, help: "Viewers decode every JPEG they get (a browser's work, on this machine's cores); --no-viewers-decode: they only receive and acknowledge each frame (a browser on another machine, whose decoding costs that machine).")
    var viewersDecode = true

    @Flag(help: "Print one JSON object.")
    var json = false

    static let pipelineNames = ["pose", "hands", "actions"]

    func validate() throws {
        try Limits.benchFrames.check(frames, "--frames")
        try Limits.benchRounds.check(rounds, "--rounds")
        try Limits.threads.check(threads, "--threads")
        for name in pipelines where !Self.pipelineNames.contains(name) {
            throw ValidationError("--pipelines: no pipeline '\(name)' (\(Self.pipelineNames.joined(separator: ", ")))")
        }
        guard !viewers.isEmpty, viewers.allSatisfy({ (0...16).contains($0) }) else { throw ValidationError("--viewers: counts in 0...16") }
    }

    func run() async throws {
        let path = clip ?? "../shared/media/videos/yuyoujiang_test_video__squat.mp4"
        var decoded: [VideoFrame] = []
        for try await frame in MediaFrames(path: path) {
            decoded.append(frame)
            if decoded.count == frames { break }
        }
        guard decoded.count >= 10 else { throw CLIError("\(path): \(decoded.count) frames; the benchmark needs at least 10") }
        // `posekit view`'s defaults, exactly: its options parsed from nothing.
        let model = try ModelOptions.parse(["--threads", String(threads)])
        let detector = try model.makeDetector(DecodeOptions.parse([]), defaults: .default)
        let handDetector = try HandOptions.parse([]).makeDetector(threads: threads, precision: model.precision, loadsBodyModel: false)
        let recognizer = try ActionRecognizer()
        let log: (String) -> Void = json ? { _ in } : { print($0) }
        var report: [String: Any] = ["host": BenchEnvironment.report(log: log), "clip": path, "frames": decoded.count,
                                     "threads": threads, "live": live, "rounds": rounds, "viewers_decode": viewersDecode]
        log("bench view: \(decoded.count) frames of \(path) (\(decoded[0].width)x\(decoded[0].height)), \(threads) threads, "
            + (live ? "played live at the clip's rate" : "every frame, as fast as the pipeline goes") + ", \(rounds) rounds, "
            + (viewersDecode ? "viewers decode every JPEG" : "viewers acknowledge without decoding"))

        let benchmark = ViewBenchmark(frames: decoded, detector: detector, handDetector: handDetector, recognizer: recognizer,
                                      pipelines: pipelines, viewers: viewers, rounds: rounds, live: live, viewersDecode: viewersDecode)
        try await benchmark.run(into: &report, log: log)
        if json {
            print(try BenchmarkReport.json(report))
        }
    }
}
