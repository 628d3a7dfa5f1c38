import Foundation
import PoseKit
import ViewServer

/// `posekit bench view`'s measurement: `posekit view`'s loop (``ViewLoop``) over frames held in
/// memory, with 0, 1 and 4 viewers (in-process WebSocket clients that decode each JPEG, as a
/// browser does, and acknowledge it), interleaved round by round, for the pose, pose --hands and
/// actions pipelines; what a frame's JPEG costs once; the table of frames/s, ratios to no viewer,
/// frames shown and delays.
public struct ViewBenchmark {
    /// The frames every run goes over.
    public let frames: [VideoFrame]
    /// The pose pipeline's detector, the hands' (pipeline `hands`), the actions' recognizer (pipeline `actions`).
    public let detector: PoseDetector
    public let handDetector: HandDetector
    public let recognizer: ActionRecognizer
    /// The pipelines (`pose`, `hands`, `actions`) and viewer counts (0 the baseline) measured.
    public let pipelines: [String]
    public let viewers: [Int]
    /// Rounds; whether the frames are played at their rate, late ones dropped (a live source).
    public let rounds: Int
    public let live: Bool
    /// Whether each viewer decodes every JPEG it gets (a browser on this machine) before it
    /// acknowledges the frame, or only acknowledges it (a browser on another machine).
    public let viewersDecode: Bool

    /// A benchmark of these pipelines and viewer counts over `frames`.
    public init(frames: [VideoFrame], detector: PoseDetector, handDetector: HandDetector, recognizer: ActionRecognizer,
                pipelines: [String], viewers: [Int], rounds: Int, live: Bool, viewersDecode: Bool = true) {
        (self.frames, self.detector, self.handDetector, self.recognizer) = (frames, detector, handDetector, recognizer)
        (self.pipelines, self.viewers, self.rounds, self.live, self.viewersDecode) = (pipelines, viewers, rounds, live, viewersDecode)
    }

    /// Runs every round, logging each run and the table (`log`), and adds `jpeg_ms`, `jpeg_through_rgb_ms`, `jpeg_bytes`
    /// and `results` (a row per pipeline and viewer count) to `report`.
    public func run(into report: inout [String: Any], log: (String) -> Void) async throws {
        let decoded = frames
        // What a frame costs the viewers once, whatever their number: its JPEG (one core), as the
        // server makes it (a 4:2:0 frame from its planes) and, interleaved, through RGB as before.
        var encodeTimes: [Double] = [], throughRGBTimes: [Double] = []
        var jpegBytes = 0
        for frame in decoded.prefix(30) {
            var start = MonotonicClock.now()
            jpegBytes = try JPEG.encode(frame).count
            encodeTimes.append(MonotonicClock.now() - start)
            start = MonotonicClock.now()
            _ = try JPEG.encode(frame.rgb())
            throughRGBTimes.append(MonotonicClock.now() - start)
        }
        let (encodeMedian, throughRGBMedian) = (Median.of(encodeTimes), Median.of(throughRGBTimes))
        report["jpeg_ms"] = encodeMedian * 1000
        report["jpeg_through_rgb_ms"] = throughRGBMedian * 1000
        report["jpeg_bytes"] = jpegBytes
        log(String(format: "JPEG (quality %d, as served): %.2f ms per frame (median of %d; through RGB %.2f ms), %d bytes",
                   JPEG.defaultQuality, encodeMedian * 1000, encodeTimes.count, throughRGBMedian * 1000, jpegBytes))

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
    }

    /// One run's figures: the pipeline's frames/s, frames shown per second per viewer, each
    /// shown frame's arrival-to-display delay (seconds).
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
        let clients = try (0..<count).map { _ in try BenchViewer(address: address, decodes: viewersDecode) }
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

/// A viewer of the benchmark: on its own thread, it decodes every JPEG it gets (a browser's work;
/// unless not `decodes`) and acknowledges the frame, until the server closes.
final class BenchViewer: @unchecked Sendable {
    private let client: ViewerClient
    private let done = DispatchSemaphore(value: 0)

    init(address: ListenAddress, decodes: Bool) throws {
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
                    guard let index = pending, !decodes || (try? JPEG.decode(jpeg)) != nil else { continue }
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
