import ArgumentParser
import Foundation
import KernelBenchmarks
import PoseKit
import ViewServer

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
            send the next (newest) frame. Runs are interleaved: round by round, every pipeline \
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
                                     "threads": threads, "live": live, "rounds": rounds]
        log("bench view: \(decoded.count) frames of \(path) (\(decoded[0].width)x\(decoded[0].height)), \(threads) threads, "
            + (live ? "played live at the clip's rate" : "every frame, as fast as the pipeline goes") + ", \(rounds) rounds")

        // What a frame costs the viewers once, whatever their number: RGB conversion and JPEG encoding (one core).
        var encodeTimes: [Double] = []
        var jpegBytes = 0
        for frame in decoded.prefix(30) {
            let start = MonotonicClock.now()
            jpegBytes = try JPEG.encode(frame.rgb()).count
            encodeTimes.append(MonotonicClock.now() - start)
        }
        let encodeMedian = Median.of(encodeTimes)
        report["jpeg_ms"] = encodeMedian * 1000
        report["jpeg_bytes"] = jpegBytes
        log(String(format: "JPEG (quality %d, RGB conversion included): %.2f ms per frame (median of %d), %d bytes",
                   JPEG.defaultQuality, encodeMedian * 1000, encodeTimes.count, jpegBytes))

        var results: [String: [Int: [Run]]] = [:]
        for round in 0..<rounds {
            for pipeline in pipelines {
                for count in viewers {
                    let run = try await measure(pipeline: pipeline, viewers: count, frames: decoded, detector: detector,
                                                hands: pipeline == "hands" ? handDetector : nil,
                                                engine: pipeline == "actions" ? try recognizer.makeEngine() : nil)
                    results[pipeline, default: [:]][count, default: []].append(run)
                    log("  round \(round + 1) \(pipeline), \(count) viewer(s): \(String(format: "%.2f", run.pipelineRate)) frames/s"
                        + (count > 0 ? String(format: ", shown %.2f/s per viewer", run.shownRate) : ""))
                }
            }
        }
        var table: [[String: Any]] = []
        log("\npipeline  viewers  frames/s  vs none  shown/s/viewer  delay median  delay p95")
        for pipeline in pipelines {
            let baseline = results[pipeline]?[0]
            for count in viewers {
                guard let runs = results[pipeline]?[count] else { continue }
                let rate = Median.of(runs.map(\.pipelineRate))
                let ratio = baseline.map { base in Median.of(zip(runs, base).map { $0.pipelineRate / $1.pipelineRate }) }
                let delays = runs.flatMap(\.delays)
                let median = Median.of(delays), p95 = ViewerStatistics.Snapshot.percentile(delays, 0.95)
                let shown = Median.of(runs.map(\.shownRate))
                log(String(format: "%-9@ %7d  %8.2f  %7@  %14@  %12@  %9@", pipeline as NSString, count, rate,
                           (ratio.map { String(format: "%.3f", $0) } ?? "-") as NSString,
                           (count > 0 ? String(format: "%.2f", shown) : "-") as NSString,
                           (delays.isEmpty ? "-" : String(format: "%.0f ms", median * 1000)) as NSString,
                           (delays.isEmpty ? "-" : String(format: "%.0f ms", p95 * 1000)) as NSString))
                var row: [String: Any] = ["pipeline": pipeline, "viewers": count, "frames_per_second": rate,
                                          "rounds": runs.map(\.pipelineRate)]
                if let ratio { row["ratio_to_no_viewer"] = ratio }
                if count > 0 {
                    row["shown_per_second_per_viewer"] = shown
                    row["delay_median_ms"] = median * 1000
                    row["delay_p95_ms"] = p95 * 1000
                }
                table.append(row)
            }
        }
        report["results"] = table
        if json {
            print(String(decoding: try JSONSerialization.data(withJSONObject: report, options: [.sortedKeys]), as: UTF8.self))
        }
    }

    /// One run's figures.
    struct Run {
        var pipelineRate: Double
        var shownRate: Double
        var delays: [Double]
    }

    /// `posekit view`'s loop over `frames` with `viewers` clients connected.
    private func measure(pipeline: String, viewers count: Int, frames: [VideoFrame], detector: PoseDetector,
                         hands: HandDetector?, engine: ActionEngine?) async throws -> Run {
        let feed = LiveFeed(hello: ViewScene.hello(source: "bench", hands: hands != nil, gestures: false, actions: engine != nil))
        let server = ViewServer(feed: feed, address: ListenAddress(host: "127.0.0.1", port: 0))
        let address = try await server.start()
        let clients = try (0..<count).map { _ in try BenchViewer(address: address) }
        while feed.snapshot().viewers < count { try await Task.sleep(nanoseconds: 1_000_000) }   // all connected
        let sink = try ByteSink(path: "/dev/null")
        var loop = ViewLoop(source: "bench", coordinates: .pixels, feed: feed, engine: engine, gestures: nil, json: sink,
                            reporter: nil)
        let source = MemoryFrames(frames: frames)
        let start = MonotonicClock.now()
        if live {
            try await loop.run(frames: PacedFrames(source), finder: detector, handDetector: hands, smoothing: true,
                               tracking: PoseTracker.Configuration(), dropsLateFrames: true)
        } else {
            try await loop.run(frames: source, finder: detector, handDetector: hands, smoothing: true,
                               tracking: PoseTracker.Configuration(), dropsLateFrames: false)
        }
        let elapsed = MonotonicClock.now() - start
        let processed = loop.framesProcessed
        try loop.finish(failure: nil)
        let figures = feed.snapshot()
        await server.stop()
        for client in clients { client.join() }
        return Run(pipelineRate: Double(processed) / elapsed,
                   shownRate: count > 0 ? Double(figures.framesShown) / Double(count) / elapsed : 0,
                   delays: figures.recentDelays)
    }
}

/// A viewer of the benchmark: on its own thread, it decodes every JPEG it gets (a browser's work)
/// and acknowledges the frame, until the server closes.
final class BenchViewer: @unchecked Sendable {
    private let client: ViewerClient
    private let done = DispatchSemaphore(value: 0)

    init(address: ListenAddress) throws {
        client = try ViewerClient(address: address, timeout: 120)
        Thread { [self] in
            defer { done.signal() }
            var pending: Int?
            while true {
                guard let message = try? client.receive() else { return }
                switch message {
                case .text(let text):
                    pending = Self.frameIndex(in: text)
                case .binary(let jpeg):
                    guard let index = pending, (try? JPEG.decode(jpeg)) != nil else { continue }
                    pending = nil
                    try? client.acknowledge(index)
                case .closed:
                    return
                }
            }
        }.start()
    }

    func join() { done.wait() }

    /// N of a frame message's `"frame": N` (the message starts with its type and index).
    static func frameIndex(in text: String) -> Int? {
        guard text.hasPrefix("{\"type\": \"frame\", \"frame\": ") else { return nil }
        return Int(text.dropFirst("{\"type\": \"frame\", \"frame\": ".count).prefix { $0.isNumber })
    }
}

/// Frames held in memory, as a source.
struct MemoryFrames: AsyncSequence, Sendable {
    typealias Element = VideoFrame
    let frames: [VideoFrame]

    func makeAsyncIterator() -> Iterator { Iterator(frames: frames) }

    struct Iterator: AsyncIteratorProtocol {
        let frames: [VideoFrame]
        var next = 0
        mutating func next() async throws -> VideoFrame? {
            guard next < frames.count else { return nil }
            defer { next += 1 }
            return frames[next]
        }
    }
}
