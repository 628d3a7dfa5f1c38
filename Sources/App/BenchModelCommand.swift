import ArgumentParser
import Foundation
import ModelFiles
import KernelBenchmarks
import PoseKit

/// `posekit bench model`: forward-pass time of each bundled PoseNet at several input sizes.
struct BenchModel: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "model",
        abstract: "Time the PoseNet forward pass (median of repeated runs after warm-up).",
        discussion: """
              posekit bench model                         # every PoseNet, size, threads
              posekit bench model --models mobilenet075 --sizes 513 --layers
              posekit bench model --models mobilenet075 --sizes 257 --threads 1 \\
                --layers --compare-ort
              posekit bench model --models palm_detection_full.pkw --threads 1 \\
                --compare-tflite
              posekit bench model --models mobilenet075 --sizes 513 --busy-neighbor

            Median and minimum milliseconds per forward pass, GFLOP and GFLOP/s, per model, \
            input size and thread count; imported graphs at their own input size. What each \
            column means, zero-channel skipping, --image, --letterbox, --precision and the peers: \
            docs/cli.md "Benchmarks".
            """)

    @Option(parsing: .upToNextOption, help: "Models (names or .pkw paths; or imported graphs: .pkw of a .tflite, or .tflite).",
            completion: ModelOptions.completion(for: ModelCatalogue.bundleNames))
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
        "Also time ONNX Runtime's forward pass on the same published weights in rounds interleaved with ours (scripts/ort-forward-server.py), printing the ratio of medians, the median round ratio and the ratio of CPU time per pass; with --layers, also layer by layer (its profiler, scripts/ort-layer-profile.py). Needs python3 with numpy, onnx and onnxruntime and ../shared/tools/peers/ort_peer.py."))
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

    @Option(parsing: .upToNextOption, help: ArgumentHelp(
        "Precisions of the 1x1 convolutions to time (fp32, bf16, int8, auto); with several, each configuration is also timed with them interleaved and compared with the first (e.g. --precision fp32 int8 bf16). The per-layer table names each layer's kernels and precision.",
        valueName: "p"))
    var precision: [Precision] = [.fp32]

    @Option(help: ArgumentHelp(
        "Fill the input with this image (PPM, or a Y4M's first frame), letterboxed as `posekit pose` places it, instead of the synthetic pattern. The packed GEMM skips input channels that are zero in all of a tile's pixels, which ReLU6 makes common on real images, so its times depend on what the network sees.",
        valueName: "path"))
    var image: String?

    @Flag(help: ArgumentHelp(
        "For imported graphs (.pkw from a .tflite, or a .tflite): also time the TFLite runtime on the same .tflite (ai-edge-litert, XNNPACK), in rounds interleaved with ours, and print the ratio (needs python3 with numpy and ai-edge-litert)."))
    var compareTflite = false

    @Flag(inversion: .prefixedNo, help: ArgumentHelp(
        "For imported graphs: run each residual ADD and PRELU in the epilogue of the convolution before it where the graph allows (what `posekit run` and the pipelines do; the same values). With --no-fuse-epilogues each runs as a step of its own."))
    var fuseEpilogues = true

    @Flag(help: "For imported graphs: also time the plan without epilogue fusion, in rounds interleaved with the others, and print fused / unfused (what fusion saves).")
    var compareFusion = false

    @Flag(help: "Print one JSON object instead of a table.")
    var json = false

    func validate() throws {
        for model in models { try ModelOptions.checkName(model, "--models", among: ModelCatalogue.bundleNames) }
        try Limits.benchRuns.check(runs, "--runs")
        try Limits.inputSize.check(sizes, "--sizes")
        try Limits.threads.check(threads, "--threads")
        try Limits.checkOutputStride(outputStride)
        if image != nil && letterbox != nil { throw ValidationError("--image and --letterbox both say what fills the input: give one") }
        if compareOrt && outputStride != 16 { throw ValidationError("--compare-ort: the ONNX Runtime peer builds output stride 16 only") }
    }

    func run() throws {
        // Imported graphs (MediaPipe's .tflite models) have their own benchmark: one input size
        // (the graph's), GraphRunner, the TFLite runtime as the peer.
        let graphs = models.filter(GraphModelFile.isGraph)
        if !graphs.isEmpty {
            guard graphs.count == models.count else {
                throw ValidationError("--models: give either imported graphs (.pkw of a .tflite, .tflite) or PoseNet models, not both")
            }
            let loaded = try graphs.map { path in
                GraphModelBenchmark.Model(name: URL(fileURLWithPath: path).deletingPathExtension().lastPathComponent,
                                          graph: try GraphModelFile.load(path), tflite: GraphModelFile.sourceTFLite(of: path))
            }
            for requested in precision {
                if let problem = requested.unavailability { throw CLIError("--precision \(requested.rawValue): \(problem)") }
            }
            for requested in precision {
                if precision.count > 1 && !json { print("precision \(try requested.resolved().rawValue) (1x1 convolutions):") }
                var benchmark = GraphModelBenchmark(models: loaded, threads: threads, runs: runs, compareTFLite: compareTflite,
                                                    layers: layers, precision: requested)
                benchmark.fusingEpilogues = fuseEpilogues
                benchmark.compareFusion = compareFusion
                let report = try benchmark.run(log: json ? { _ in } : { StandardOutput.printLine($0) })
                if json {
                    print(try BenchmarkReport.json(report))
                }
            }
            return
        }
        if compareTflite { throw ValidationError("--compare-tflite compares imported graphs (.pkw of a .tflite, or a .tflite)") }
        if compareFusion || !fuseEpilogues {
            throw ValidationError("--compare-fusion and --no-fuse-epilogues are for imported graphs (.pkw of a .tflite, or a .tflite)")
        }
        for requested in precision {
            if let problem = requested.unavailability { throw CLIError("--precision \(requested.rawValue): \(problem)") }
        }
        let benchmark = ModelBenchmark(models: models, sizes: sizes, threads: threads, outputStride: outputStride, runs: runs,
                                       layers: layers, busyNeighbor: busyNeighbor, compareOrt: compareOrt,
                                       letterbox: letterbox.map { ModelBenchmark.FrameSize(width: $0.width, height: $0.height) },
                                       skipZeroChannels: skipZeroChannels, compareSkipping: compareSkipping, image: image,
                                       precisions: precision)
        let report = try benchmark.run(log: json ? { _ in } : { StandardOutput.printLine($0) })
        if json {
            print(try BenchmarkReport.json(report))
        }
    }
}
