import KernelBenchmarks
import ArgumentParser
import CPUFeatures
import FrameIO
import Foundation
import PoseCore
import PoseNet
import Tensor

/// `posekit bench model`: forward-pass time of each bundled PoseNet at several input sizes.
struct BenchModel: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "model",
        abstract: "Time the PoseNet forward pass (median of repeated runs after warm-up).",
        discussion: """
            For each model, input size and thread count: median and minimum milliseconds per forward \
            pass, GFLOP per pass (2 per multiply-add) and GFLOP/s at the median. --layers adds a \
            per-layer breakdown at the largest size (best and median per layer). "CPU ms/thr" is the process's CPU time per pass \
            divided by the thread count (median): it leaves out time spent descheduled on a busy \
            host, but counts every thread's spinning and library threads. --busy-neighbor times each configuration \
            again next to a process that busy-loops on one core (a shared host) and prints the \
            slowdown per thread count.

            The pointwise layers skip input channels that are zero in all of a tile's pixels, as \
            `posekit pose` does, so times depend on the input: the default synthetic pattern, or \
            a real photo with --image. GFLOP counts the full product; GFLOP/s is that over the \
            time, so it rises above the hardware's rate when channels are skipped. \
            --no-skip-zero-channels times the full product, --compare-skipping both.

            EXAMPLES
              posekit bench model
              posekit bench model --models mobilenet075 --sizes 513 --threads 2 --layers
              posekit bench model --models mobilenet075 --sizes 257 --threads 1 --layers --compare-ort
              posekit bench model --models mobilenet075 --sizes 513 --busy-neighbor
              posekit bench model --models mobilenet075 --sizes 257 --threads 1 --letterbox 640x480
              posekit bench model --models mobilenet075 --sizes 257 --threads 1 --layers --image photo.ppm
              posekit bench model --models mobilenet075 --sizes 257 --image photo.ppm --compare-skipping
              POSEKIT_GEMM=blas posekit bench model --sizes 513
              env -u OPENBLAS_CORETYPE posekit bench model --json
            """)

    @Option(parsing: .upToNextOption, help: "Models (names or .pkw paths).")
    var models: [String] = ModelLocator.knownModels

    @Option(parsing: .upToNextOption, help: "Input sizes (\(Limits.inputSize.text)).")
    var sizes: [Int] = [257, 353, 513]

    @Option(parsing: .upToNextOption, help: "Thread counts (\(Limits.threads.text)).")
    var threads: [Int] = [1, 2]

    @Option(help: "Output stride (\(Limits.outputStridesText)).")
    var outputStride = 16

    @Option(help: "Timed runs per configuration (at least 20 recommended; \(Limits.benchRuns.text)).")
    var runs = 20

    @Flag(help: "Print a per-layer time breakdown (largest size, most threads).")
    var layers = false

    @Flag(help: "Also time each configuration next to a process busy-looping on one core.")
    var busyNeighbor = false

    @Flag(help: ArgumentHelp(
        "With --layers: also time ONNX Runtime's forward pass layer by layer (its profiler) on the same published weights, right after ours (scripts/ort-layer-profile.py with ../shared/tools/peers/ort_peer.py; needs python3 with numpy, onnx and onnxruntime)."))
    var compareOrt = false

    @Option(help: ArgumentHelp(
        "Also time a frame of this size (WxH, each 1...16384) letterboxed into the input, interleaved with every row and column computed: the padding rows (columns, for a portrait frame) are one color, and the network computes only one of the rows (columns) they give (e.g. 640x480, 1280x720, 720x1280; with --layers, the breakdown is of that frame).",
        valueName: "WxH"))
    var letterbox: FrameSize?

    @Flag(inversion: .prefixedNo, help: ArgumentHelp(
        "Leave out of each pointwise product the input channels that are zero in all of a tile's pixels (what `posekit pose` does; the same outputs). With --no-skip-zero-channels every channel is multiplied, the work the synthetic pattern and every image then take alike."))
    var skipZeroChannels = true

    @Flag(help: "Also time each configuration with every channel multiplied, interleaved with the timed runs, and print the ratio (what skipping zero channels saves on this input).")
    var compareSkipping = false

    @Option(help: ArgumentHelp(
        "Fill the input with this image (PPM, or a Y4M's first frame), letterboxed as `posekit pose` places it, instead of the synthetic pattern. The packed GEMM skips input channels that are zero in all of a tile's pixels, which ReLU6 makes common on real images, so its times depend on what the network sees.",
        valueName: "path"))
    var image: String?

    @Flag(help: "Print one JSON object instead of a table.")
    var json = false

    func validate() throws {
        try Limits.benchRuns.check(runs, "--runs")
        try Limits.inputSize.check(sizes, "--sizes")
        try Limits.threads.check(threads, "--threads")
        try Limits.checkOutputStride(outputStride)
        if compareOrt && !layers { throw ValidationError("--compare-ort compares layer by layer: add --layers") }
        if image != nil && letterbox != nil { throw ValidationError("--image and --letterbox both say what fills the input: give one") }
        if compareOrt && outputStride != 16 { throw ValidationError("--compare-ort: the ONNX Runtime peer builds output stride 16 only") }
    }

    func run() throws {
        let log: (String) -> Void = json ? { _ in } : { print($0) }
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
        log("model            size threads   GFLOP  median ms   min ms  GFLOP/s  CPU ms/thr" + (busyNeighbor ? "  busy ms  slowdown" : ""))
        for name in models {
            let bundle = try WeightBundle(contentsOf: try ModelLocator.resolve(name))
            for size in sizes {
                for t in threads {
                    let model = try PoseNetModel(bundle: bundle, inputSize: size, outputStride: outputStride, threads: t)
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
                        "cpu_ms_per_thread": cpuMedian * 1e3,
                    ]
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
            }
            if layers, let size = sizes.max(), let t = threads.max() {
                let model = try PoseNetModel(bundle: bundle, inputSize: size, outputStride: outputStride, threads: t)
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
                log("\(name) at \(size), \(t) thread(s), per layer over \(profileRuns) runs:")
                let column = (last.map(\.name.count).max() ?? 0) + 2
                func padded(_ text: String) -> String { "  " + text.padding(toLength: column, withPad: " ", startingAt: 0) }
                log(padded("layer") + "best ms   median  GFLOP/s (at best)" + (peer == nil ? "" : "   ORT best   median   best ratio"))
                for (i, timing) in last.enumerated() {
                    var line = padded(timing.name) + String(format: "%7.3f  %7.3f  %7.1f", best[i] * 1e3, median[i] * 1e3,
                                                            Double(timing.flops) / best[i] / 1e9)
                    if let peer { line += String(format: "   %8.3f  %7.3f  %7.2fx", peer[i].best, peer[i].median, best[i] * 1e3 / peer[i].best) }
                    log(line)
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
        report["results"] = rows
        if json {
            let data = try JSONSerialization.data(withJSONObject: report, options: [.sortedKeys])
            print(String(decoding: data, as: UTF8.self))
        }
    }
}

extension BenchModel {
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

    /// ONNX Runtime's nodes summed into our `layers` rows: its first convolution is block 0, each
    /// next pair (depthwise, pointwise) one separable block, and everything after them the heads
    /// (four convolutions, the sigmoid, layout reorders). Best and median are per-node sums.
    static func peerLayers(_ nodes: [OnnxRuntimePeer.NodeTiming], layers: Int) throws -> [(best: Double, median: Double)] {
        let convolutions = 1 + 2 * (layers - 2)
        guard layers >= 2, nodes.count > convolutions, nodes.prefix(convolutions).allSatisfy({ $0.op == "Conv" }) else {
            throw CLIError("--compare-ort: ONNX Runtime's graph does not start with the \(convolutions) convolutions of the backbone (\(nodes.prefix(4).map(\.op)) ...)")
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

/// What every benchmark prints first: which OpenBLAS kernels are active (`OPENBLAS_CORETYPE` in
/// the environment forces a set that may be weaker than the one OpenBLAS picks for the CPU) and
/// how busy the machine is (other work skews timings, 2-thread figures most).
enum BenchEnvironment {
    static func report(log: (String) -> Void) -> [String: Any] {
        let core = BLASThreads.coreName
        let forced = ProcessInfo.processInfo.environment["OPENBLAS_CORETYPE"]
        var report: [String: Any] = [
            "openblas_core": core, "openblas_coretype_env": forced ?? NSNull(), "build": BuildTarget.description,
            "cpu": HostCPU.summary, "gemm_kernel": GEMMKernel.preferred.description,
        ]
        log("build: \(BuildTarget.description); CPU: \(HostCPU.summary)")
        log("GEMM kernel: \(GEMMKernel.preferred.description)")
        log("OpenBLAS core: \(core)" + (forced == nil ? " (auto-detected)" : " (forced by OPENBLAS_CORETYPE)"))
        if let forced {
            log("warning: OPENBLAS_CORETYPE=\(forced) forces OpenBLAS's \(forced) kernels, which may be weaker than the ones "
                + "it picks for this CPU; compare with `env -u OPENBLAS_CORETYPE`.")
        }
        if let loadavg = try? String(contentsOfFile: "/proc/loadavg", encoding: .utf8),
           let oneMinute = loadavg.split(separator: " ").first.flatMap({ Double($0) }) {
            report["load_average_1min"] = oneMinute
            if oneMinute > 1 {
                log(String(format: "note: 1-minute load average is %.1f on %d cores; other processes skew these timings",
                           oneMinute, Parallelism.defaultThreads))
            }
        }
        return report
    }
}
