import Foundation
import FrameIO
import PoseCore
import PoseNet
import Tensor
#if canImport(Glibc)
import Glibc
#endif

/// The measurements behind `posekit bench model`: forward-pass time of PoseNet models at several
/// input sizes and thread counts (median and minimum ms, GFLOP, GFLOP/s, CPU ms per thread), with
/// a per-layer breakdown (optionally next to ONNX Runtime's nodes), a busy neighbor, a letterboxed
/// frame's band, and zero-channel skipping on and off; returns the JSON-ready report.
public struct ModelBenchmark {
    /// A frame size (`WxH`), letterboxed into the input.
    public struct FrameSize: CustomStringConvertible, Sendable {
        public let width: Int, height: Int
        public init(width: Int, height: Int) { (self.width, self.height) = (width, height) }
        public var description: String { "\(width)x\(height)" }
    }

    public var models: [String]
    public var sizes: [Int]
    public var threads: [Int]
    public var outputStride: Int
    public var runs: Int
    /// A per-layer breakdown at the largest size and thread count.
    public var layers: Bool
    /// Each configuration again next to a process busy-looping on one core.
    public var busyNeighbor: Bool
    /// With `layers`: ONNX Runtime's nodes, grouped like the layers, timed right after them.
    public var compareOrt: Bool
    /// A frame of this size letterboxed into the input: its band skipped, against every row computed.
    public var letterbox: FrameSize?
    public var skipZeroChannels: Bool
    /// Each configuration with every channel multiplied too, interleaved.
    public var compareSkipping: Bool
    /// An image filling the input instead of the synthetic pattern.
    public var image: String?
    /// The precisions of the 1×1 convolutions to time (each resolved: `auto` as it runs here);
    /// with more than one, each configuration is also timed interleaved and compared with the first.
    public var precisions: [Precision]

    public init(models: [String], sizes: [Int], threads: [Int], outputStride: Int, runs: Int, layers: Bool = false,
                busyNeighbor: Bool = false, compareOrt: Bool = false, letterbox: FrameSize? = nil, skipZeroChannels: Bool = true,
                compareSkipping: Bool = false, image: String? = nil, precisions: [Precision] = [.fp32]) {
        self.models = models; self.sizes = sizes; self.threads = threads; self.outputStride = outputStride
        self.runs = runs; self.layers = layers; self.busyNeighbor = busyNeighbor; self.compareOrt = compareOrt
        self.letterbox = letterbox; self.skipZeroChannels = skipZeroChannels; self.compareSkipping = compareSkipping
        self.image = image; self.precisions = precisions
    }

    public func run(log: (String) -> Void) throws -> [String: Any] {
        var report = BenchEnvironment.report(log: log)
        var rows: [[String: Any]] = []
        let picture = try image.map { try RGBImage(contentsOfFile: $0) }
        if let image, let picture {
            report["input_image"] = image
            log("input: \(image) (\(picture.width)x\(picture.height)), letterboxed")
        }
        /// The picture when given (letterboxed as `pose` places it), else the synthetic pattern;
        /// returns the padding band the network skips, as `pose` passes it.
        func fill(_ input: Tensor, letterboxing frame: FrameSize?) throws -> PaddingBand? {
            guard let picture else { return try Self.fill(input, letterboxing: frame) }
            let writer = try NetworkInputWriter(sourceWidth: picture.width, sourceHeight: picture.height, size: input.shape[0])
            input.withUnsafeMutableBufferPointer { writer.write(picture, into: $0) }
            return writer.paddingBand
        }
        log("model            size threads   GFLOP  median ms   min ms  GFLOP/s  CPU ms/thr" + (busyNeighbor ? "  busy ms  slowdown" : "")
            + "  precision")
        for name in models {
            let bundle = try WeightBundle(contentsOf: try ModelLocator.resolve(name))
            let allWeights = try precisions.map { try PoseNetWeights(bundle: bundle, precision: $0) }
            for size in sizes {
                for t in threads {
                  var compared: [(model: PoseNetModel, padding: PaddingBand?)] = []
                  for weights in allWeights {
                    let model = try PoseNetModel(weights: weights, inputSize: size, outputStride: outputStride, threads: t)
                    model.skipsZeroChannels = skipZeroChannels
                    let padding = try fill(model.input, letterboxing: nil)
                    let timing = try Benchmark.measure(warmup: 5, runs: runs, minimumSeconds: 0.5) { try model.run(padding: padding) }
                    var cpu: [Double] = []
                    for _ in 0..<runs {
                        let start = processCPUSeconds()
                        try model.run(padding: padding)
                        cpu.append((processCPUSeconds() - start) / Double(t))
                    }
                    let cpuMedian = cpu.sorted()[cpu.count / 2]
                    let gflop = Double(model.flops) / 1e9
                    var row: [String: Any] = [
                        "model": name, "input_size": size, "threads": t, "gflop": gflop,
                        "median_ms": timing.median * 1e3, "min_ms": timing.minimum * 1e3,
                        "gflops": gflop / timing.median, "runs": timing.samples.count,
                        "cpu_ms_per_thread": cpuMedian * 1e3, "precision": weights.precision.rawValue,
                    ]
                    compared.append((model, padding))
                    var line = String(format: "%-16@ %4d %7d %7.3f %10.2f %8.2f %8.1f %11.2f", name as NSString, size, t, gflop,
                                      timing.median * 1e3, timing.minimum * 1e3, gflop / timing.median, cpuMedian * 1e3)
                    if busyNeighbor {
                        let neighbor = try BusyNeighbor()
                        let busy = try Benchmark.measure(warmup: 5, runs: runs, minimumSeconds: 0.5) { try model.run(padding: padding) }
                        neighbor.stop()
                        row["busy_neighbor_median_ms"] = busy.median * 1e3
                        row["busy_neighbor_slowdown"] = busy.median / timing.median
                        line += String(format: " %8.2f %8.2fx", busy.median * 1e3, busy.median / timing.median)
                    }
                    line += "  " + weights.precision.rawValue
                    if compareSkipping {
                        let timings = try Benchmark.measureInterleaved(warmup: 5, runs: runs, minimumSeconds: 0.5, [
                            { model.skipsZeroChannels = true; try model.run(padding: padding) },
                            { model.skipsZeroChannels = false; try model.run(padding: padding) },
                        ])
                        model.skipsZeroChannels = skipZeroChannels
                        let (skipping, full) = (timings[0].median, timings[1].median)
                        row["zero_channels"] = [
                            "skipping_median_ms": skipping * 1e3, "all_multiplied_median_ms": full * 1e3, "ratio": skipping / full,
                        ]
                        line += String(format: "\n  zero channels skipped: %.2f ms, all multiplied %.2f ms: %.2fx",
                                       skipping * 1e3, full * 1e3, skipping / full)
                    }
                    rows.append(row)
                    log(line)
                    if let letterbox {
                        // A model on the letterboxed frame, skipping the band and computing every row and column, alternating.
                        let framed = try PoseNetModel(weights: model.weights, inputSize: size, outputStride: outputStride, threads: t)
                        framed.skipsZeroChannels = skipZeroChannels
                        let band = try Self.fill(framed.input, letterboxing: letterbox)
                        let padding = band?.range.count ?? 0
                        let timings = try Benchmark.measureInterleaved(warmup: 5, runs: runs, minimumSeconds: 0.5, [
                            { try framed.run(padding: band) },
                            { try framed.run() },
                        ])
                        let (skipping, full) = (timings[0].median, timings[1].median)
                        rows[rows.count - 1]["letterbox"] = [
                            "frame": "\(letterbox)", "padding": padding,
                            "median_ms": skipping * 1e3, "all_computed_median_ms": full * 1e3, "ratio": skipping / full,
                        ] as [String: Any]
                        let axis = band?.axis == .columns ? "columns" : "rows"
                        log(String(format: "  letterboxed %@ (%d of %d %@ one color): %.2f ms, all computed %.2f ms: %.2fx",
                                   "\(letterbox)" as NSString, padding, size, axis as NSString, skipping * 1e3, full * 1e3,
                                   skipping / full))
                    }
                  }
                  if compareOrt, let first = compared.first {
                      rows[rows.count - compared.count]["onnx_runtime"] = try Self.compareForward(
                          first.model, padding: first.padding, peer: OnnxRuntimePeer(bundle: bundle, threads: t), size: size,
                          runs: runs, log: log)
                  }
                  if compared.count > 1 {
                      // The precisions in alternation, so the host's load falls on all alike.
                      let timings = try Benchmark.measureInterleaved(warmup: 5, runs: runs, minimumSeconds: 0.5, compared.map { entry in
                          { try entry.model.run(padding: entry.padding) }
                      })
                      var parts: [String] = []
                      for (i, entry) in compared.enumerated() {
                          let ratio = timings[0].median / timings[i].median
                          parts.append(String(format: "%@ %.2f ms (%.2fx)", entry.model.weights.precision.rawValue as NSString,
                                              timings[i].median * 1e3, ratio))
                          rows[rows.count - compared.count + i]["interleaved"] = [
                              "median_ms": timings[i].median * 1e3, "min_ms": timings[i].minimum * 1e3,
                              "speedup_over_first": ratio,
                          ] as [String: Any]
                      }
                      log("  interleaved medians (speed-up over \(compared[0].model.weights.precision.rawValue)): " + parts.joined(separator: ", "))
                  }
                }
            }
            if layers, let size = sizes.max(), let t = threads.max() {
              for weights in allWeights {
                let model = try PoseNetModel(weights: weights, inputSize: size, outputStride: outputStride, threads: t)
                model.skipsZeroChannels = skipZeroChannels
                let padding = try fill(model.input, letterboxing: letterbox)
                for _ in 0..<5 { try model.run(padding: padding) }
                // Per layer: every run's time, for the best (what the kernel can do) and the median
                // (what it does on this machine as it is).
                var samples: [[Double]] = []
                var last: [PoseNetModel.LayerTiming] = []
                let profileRuns = max(5, runs / 2)
                for _ in 0..<profileRuns {
                    last = try model.profile(padding: padding)
                    if samples.isEmpty { samples = last.map { _ in [] } }
                    for i in last.indices { samples[i].append(last[i].seconds) }
                }
                let best = samples.map { $0.min()! }, median = samples.map { Benchmark.Timing(samples: $0).median }
                // ONNX Runtime's nodes, grouped like our layers, timed right after them.
                let peer = compareOrt
                    ? try Self.peerLayers(OnnxRuntimePeer(bundle: bundle, threads: t).nodeTimings(size: size, runs: profileRuns),
                                          layers: last.count)
                    : nil
                log("\(name) at \(size), \(t) thread(s), \(weights.precision.rawValue), per layer over \(profileRuns) runs:")
                let column = (last.map(\.name.count).max() ?? 0) + 2
                func padded(_ text: String) -> String { "  " + text.padding(toLength: column, withPad: " ", startingAt: 0) }
                log(padded("layer") + "best ms   median  GFLOP/s (at best)" + (peer == nil ? "" : "   ORT best   median   best ratio") + "   kernels")
                for (i, timing) in last.enumerated() {
                    guard !timing.timedWithPrevious else {
                        log(padded(timing.name) + "(chained with the layer above: timed in its row)")
                        continue
                    }
                    // A chain's row: both layers' work, against ONNX Runtime's two layers.
                    let rows = i + 1 < last.count && last[i + 1].timedWithPrevious ? i...(i + 1) : i...i
                    let flops = rows.reduce(0) { $0 + last[$1].flops }
                    var line = padded(timing.name) + String(format: "%7.3f  %7.3f  %7.1f", best[i] * 1e3, median[i] * 1e3,
                                                            Double(flops) / best[i] / 1e9)
                    if let peer {
                        let peerBest = rows.reduce(0) { $0 + peer[$1].best }, peerMedian = rows.reduce(0) { $0 + peer[$1].median }
                        line += String(format: "   %8.3f  %7.3f  %7.2fx", peerBest, peerMedian, best[i] * 1e3 / peerBest)
                    }
                    log(line + "   " + timing.kernels + (rows.count > 1 ? ", chained with the next layer" : ""))
                }
                var sum = padded("sum") + String(format: "%7.3f  %7.3f", best.reduce(0, +) * 1e3, median.reduce(0, +) * 1e3)
                if let peer {
                    let peerBest = peer.reduce(0) { $0 + $1.best }
                    sum += String(repeating: " ", count: 9)
                        + String(format: "   %8.3f  %7.3f  %7.2fx", peerBest, peer.reduce(0) { $0 + $1.median }, best.reduce(0, +) * 1e3 / peerBest)
                }
                log(sum)
              }
            }
        }
        report["results"] = rows
        return report
    }


    /// Fills `input` (`[size, size, 3]`) with a pattern whose rows and columns all differ; with
    /// `letterboxing`, only the part a frame of that size covers when letterboxed, the rest black
    /// where `NetworkInputWriter` pads (its `paddingBand`: the bottom rows of
    /// a landscape frame, the right columns of a portrait one). Returns that band, if any.
    @discardableResult
    static func fill(_ input: Tensor, letterboxing frame: FrameSize?) throws -> PaddingBand? {
        let size = input.shape[0]
        let band = try frame.flatMap { try NetworkInputWriter(sourceWidth: $0.width, sourceHeight: $0.height, size: size).paddingBand }
        input.withUnsafeMutableBufferPointer { p in
            for i in p.indices {
                let (y, x) = (i / (size * 3), i / 3 % size)
                let padded = band.map { $0.range.contains($0.axis == .rows ? y : x) } ?? false
                p[i] = padded ? -1 : Float(i % 255) / 127.5 - 1
            }
        }
        return band
    }

    /// Rounds of our forward pass and ONNX Runtime's (`scripts/ort-forward-server.py`, one session),
    /// alternating so the host's load falls on both alike: the ratio of the medians, the median of
    /// the rounds' ratios, and the ratio of CPU time per pass (process CPU time, every thread: on a
    /// busy host it leaves out the time either spent descheduled). Logs one line, returns the JSON.
    static func compareForward(_ model: PoseNetModel, padding: PaddingBand?, peer: OnnxRuntimePeer, size: Int, runs: Int,
                               log: (String) -> Void) throws -> [String: Any] {
        let timer = try peer.forwardTimer(size: size)
        let perRound = max(5, min(20, runs / 3)), rounds = max(3, (runs + perRound - 1) / perRound)
        var ours: [Double] = [], ourCPU: [Double] = [], theirs: [Double] = [], theirCPU: [Double] = [], roundRatios: [Double] = []
        for _ in 0..<rounds {
            var wall: [Double] = []
            for _ in 0..<perRound {
                let (start, startCPU) = (ProcessInfo.processInfo.systemUptime, processCPUSeconds())
                try model.run(padding: padding)
                ourCPU.append((processCPUSeconds() - startCPU) * 1e3)
                wall.append((ProcessInfo.processInfo.systemUptime - start) * 1e3)
            }
            ours += wall
            let peerRound = try timer.round(runs: perRound)
            theirs.append(peerRound.median)
            if let cpu = peerRound.cpu { theirCPU.append(cpu) }
            roundRatios.append(Benchmark.Timing(samples: wall).median / peerRound.median)
        }
        func median(_ values: [Double]) -> Double { values.sorted()[values.count / 2] }
        let (ourMedian, theirMedian) = (median(ours), median(theirs))
        var result: [String: Any] = [
            "median_ms": theirMedian, "ours_median_ms": ourMedian, "ratio_of_medians": ourMedian / theirMedian,
            "median_round_ratio": median(roundRatios), "rounds": rounds, "runs_per_round": perRound,
        ]
        var line = String(format: "  ONNX Runtime, %d rounds of %d interleaved: ours %.2f ms, its %.2f ms: %.2fx (median round ratio %.2fx)",
                          rounds, perRound, ourMedian, theirMedian, ourMedian / theirMedian, median(roundRatios))
        if !theirCPU.isEmpty {
            let (ours, theirs) = (median(ourCPU), median(theirCPU))
            result["cpu_ms"] = theirs
            result["ours_cpu_ms"] = ours
            result["cpu_ratio"] = ours / theirs
            line += String(format: "; CPU per pass %.2f against %.2f ms: %.2fx", ours, theirs, ours / theirs)
        }
        log(line)
        return result
    }

    /// ONNX Runtime's nodes summed into our `layers` rows: its first convolution is block 0, each
    /// next pair (depthwise, pointwise) one separable block, and everything after them the heads
    /// (four convolutions, the sigmoid, layout reorders). Best and median are per-node sums.
    static func peerLayers(_ nodes: [OnnxRuntimePeer.NodeTiming], layers: Int) throws -> [(best: Double, median: Double)] {
        let convolutions = 1 + 2 * (layers - 2)
        guard layers >= 2, nodes.count > convolutions, nodes.prefix(convolutions).allSatisfy({ $0.op == "Conv" }) else {
            throw BenchmarkError("--compare-ort: ONNX Runtime's graph does not start with the \(convolutions) convolutions of the backbone (\(nodes.prefix(4).map(\.op)) ...)")
        }
        func total(_ slice: ArraySlice<OnnxRuntimePeer.NodeTiming>) -> (best: Double, median: Double) {
            (slice.reduce(0) { $0 + $1.best }, slice.reduce(0) { $0 + $1.median })
        }
        var rows = [total(nodes[0..<1])]
        for block in 0..<(layers - 2) { rows.append(total(nodes[(1 + 2 * block)..<(3 + 2 * block)])) }
        rows.append(total(nodes[convolutions...]))
        return rows
    }
}

/// CPU time of the whole process (every thread), in seconds.
func processCPUSeconds() -> Double {
    var now = timespec()
    clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &now)
    return Double(now.tv_sec) + Double(now.tv_nsec) / 1e9
}

