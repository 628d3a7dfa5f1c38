import Foundation
import FrameIO
import PoseCore
import PoseNet
import Detectors
import Tensor

/// The measurements behind `posekit bench pipeline`: end-to-end frames/s of a 640x480 Y4M stream
/// through the library's pipeline (`PoseFinding.poses(from:)`, then JSON Lines), as `posekit pose`
/// runs it, in both schedules (frames in flight, one frame at a time), interleaved, optionally
/// each round next to ONNX Runtime's bare forward pass; then frame conversion and decoding on
/// their own. Returns the JSON-ready report.
public struct PipelineBenchmark {
    public var model: String
    public var sizes: [Int]
    public var threads: Int
    public var frames: Int
    public var rounds: Int
    /// Time ONNX Runtime's bare forward pass (same weights and threads) after each round.
    public var compareOrt: Bool

    public init(model: String, sizes: [Int], threads: Int, frames: Int, rounds: Int, compareOrt: Bool) {
        self.model = model; self.sizes = sizes; self.threads = threads; self.frames = frames
        self.rounds = rounds; self.compareOrt = compareOrt
    }

    public func run(log: (String) -> Void) async throws -> [String: Any] {
        var report = BenchEnvironment.report(log: log)
        let bundle = try WeightBundle(contentsOf: try ModelLocator.resolve(model))
        let peer = compareOrt ? try OnnxRuntimePeer(bundle: bundle, threads: threads) : nil
        let (bytes, content) = try Self.makeStream(frames: frames)
        // Read from a file, as `posekit pose clip.y4m` does (the page cache holds it): bytes in
        // memory would be copied whole at the start of every pass, which is not the pipeline's cost.
        let stream = FileManager.default.temporaryDirectory
            .appendingPathComponent("posekit-bench-\(ProcessInfo.processInfo.processIdentifier).y4m").path
        try Data(bytes).write(to: URL(fileURLWithPath: stream))
        defer { try? FileManager.default.removeItem(atPath: stream) }
        log("input: \(frames) frames 640x480 C420 (\(content)), \(threads) thread(s), model \(model), median of \(rounds) round(s)")
        var rows: [[String: Any]] = []
        for size in sizes {
            // What `posekit pose` does on video (frames in flight), and one frame at a time on every thread.
            let weights = try PoseNetWeights(bundle: bundle)
            let detector = PoseDetector(model: try PoseNetModel(weights: weights, inputSize: size, outputStride: 16, threads: threads))
            let schedules = [nil, 1].map { PoseDetector.framesInFlight(requested: $0, threads: threads) }
            var seconds = schedules.map { _ in [Double]() }, poses = schedules.map { _ in 0 }
            var peerMilliseconds: [Double] = []
            let timer = try peer?.forwardTimer(size: size)
            for framesInFlight in schedules { _ = try await runOnce(stream, detector, framesInFlight: framesInFlight) }  // warm-up: page in weights, plan converters
            for _ in 0..<rounds {
                for (i, framesInFlight) in schedules.enumerated() {
                    let (elapsed, found) = try await runOnce(stream, detector, framesInFlight: framesInFlight)
                    seconds[i].append(elapsed)
                    poses[i] = found
                }
                if let timer { peerMilliseconds.append(try timer.medianMilliseconds(runs: OnnxRuntimePeer.runs)) }
            }
            let peerMedian = peerMilliseconds.isEmpty ? nil : Benchmark.Timing(samples: peerMilliseconds).median
            for (i, framesInFlight) in schedules.enumerated() {
                let msPerFrame = 1e3 * Benchmark.Timing(samples: seconds[i]).median / Double(frames)
                var row: [String: Any] = ["input_size": size, "frames_in_flight": framesInFlight,
                                          "frames_per_second": 1e3 / msPerFrame, "ms_per_frame": msPerFrame, "poses": poses[i]]
                var line = String(format: "input %4d, %@: %6.1f frames/s  (%.2f ms/frame, %d poses)", size,
                                  framesInFlight > 1 ? "\(framesInFlight) frames in flight" : "one frame at a time",
                                  1e3 / msPerFrame, msPerFrame, poses[i])
                if let peerMedian {
                    // Each round's ratio to the ONNX Runtime batch right after it: a slow phase of the
                    // host that spans a round and its batch cancels out of that round's ratio.
                    let roundRatios = zip(seconds[i], peerMilliseconds).map { 1e3 * $0 / Double(frames) / $1 }
                    let roundRatio = Benchmark.Timing(samples: roundRatios).median
                    row["onnxruntime_forward_ms"] = peerMedian
                    row["ratio_to_onnxruntime_forward"] = msPerFrame / peerMedian
                    row["round_ratios_to_onnxruntime_forward"] = roundRatios
                    row["median_round_ratio_to_onnxruntime_forward"] = roundRatio
                    line += String(format: ", %.2fx ONNX Runtime's forward (%.2f ms); per round %.2fx (median of %d)",
                                   msPerFrame / peerMedian, peerMedian, roundRatio, roundRatios.count)
                }
                rows.append(row)
                log(line)
            }
        }
        report["pipeline"] = rows
        report["threads"] = threads

        let conversions = FrameIOBenchmark.run(seconds: 0.5)
        for c in conversions { log("one core: \(c)") }
        report["frame_conversion"] = conversions.map { ["name": $0.name, "frames_per_second": $0.framesPerSecond] }
        let decode = try benchmarkDecode()
        log(String(format: "decode 33x33 grid, %d poses: %.3f ms median", decode.posesDecoded, decode.medianMilliseconds))
        report["decode_ms"] = decode.medianMilliseconds
        return report
    }


    /// One pass over the stream exactly as `posekit pose` does it (the library's pipeline, then
    /// JSON Lines); returns (seconds, poses found).
    func runOnce(_ stream: String, _ detector: PoseDetector, framesInFlight: Int) async throws -> (Double, Int) {
        let start = MonotonicClock.now()
        let sink = NullSink()
        var text = JSONText()
        var poses = 0
        for try await detected in detector.poses(from: MediaFrames(path: stream), framesInFlight: framesInFlight) {
            poses += detected.poses.count
            text.reset()
            PoseJSONLinesEncoder.append(source: "-", frame: detected.index, width: detected.width, height: detected.height,
                                        time: detected.time, poses: detected.poses, to: &text)
            sink.write(text.bytes)
        }
        return (MonotonicClock.now() - start, poses)
    }

    /// A 640×480 Y4M stream: real frames via ffmpeg when possible.
    static func makeStream(frames: Int) throws -> ([UInt8], String) {
        let clip = ModelLocator.packageRoot().map { URL(fileURLWithPath: $0).deletingLastPathComponent()
            .appendingPathComponent("shared/media/videos/409416541_Independent-Study__Jumping_Jacks.mp4") }
        if let clip, FileManager.default.fileExists(atPath: clip.path) {
            let process = Process()
            process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
            process.arguments = ["ffmpeg", "-nostdin", "-loglevel", "error", "-stream_loop", "-1", "-i", clip.path,
                                 "-frames:v", "\(frames)", "-vf", "scale=640:480", "-pix_fmt", "yuv420p", "-f", "yuv4mpegpipe", "-"]
            let pipe = Pipe()
            process.standardOutput = pipe
            process.standardError = FileHandle.nullDevice
            if (try? process.run()) != nil {
                let data = pipe.fileHandleForReading.readDataToEndOfFile()
                process.waitUntilExit()
                if process.terminationStatus == 0 && !data.isEmpty { return ([UInt8](data), clip.lastPathComponent) }
            }
        }
        // Synthetic: a moving gradient.
        var bytes = Array("YUV4MPEG2 W640 H480 F30:1 Ip A1:1 C420jpeg\n".utf8)
        for f in 0..<frames {
            bytes += Array("FRAME\n".utf8)
            for y in 0..<480 { for x in 0..<640 { bytes.append(UInt8(truncatingIfNeeded: x + y + 4 * f)) } }
            bytes += [UInt8](repeating: 128, count: 2 * 320 * 240)
        }
        return (bytes, "synthetic")
    }
}

/// Discards output (stands in for stdout in the pipeline benchmark) but touches every byte.
final class NullSink {
    private var checksum: UInt8 = 0
    func write(_ bytes: [UInt8]) { for b in bytes { checksum &+= b } }
}
