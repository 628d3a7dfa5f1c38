import Foundation
import ModelGraph
import Tensor

/// The measurements behind `posekit bench model --models M.pkw` for imported graphs: the forward
/// pass of each graph on ``GraphRunner`` (median and minimum ms per thread count), optionally
/// interleaved with the TFLite runtime on the same `.tflite` (ai-edge-litert, XNNPACK: the engine
/// these networks were tuned for) and with our plan without epilogue fusion, and a breakdown of
/// our time per kind of step.
public struct GraphModelBenchmark {
    /// One graph to time: its name in the report, the graph, and the `.tflite` it was imported
    /// from (for the TFLite peer; nil when not found).
    public struct Model {
        public let name: String
        public let graph: Graph
        public let tflite: String?
        public init(name: String, graph: Graph, tflite: String?) { self.name = name; self.graph = graph; self.tflite = tflite }
    }

    public var models: [Model]
    public var threads: [Int]
    /// Timed forward passes per engine, in rounds of ``runsPerRound`` alternating between the engines.
    public var runs: Int
    /// Time the TFLite runtime in rounds between ours.
    public var compareTFLite: Bool
    /// Print where our time goes per kind of step (`conv 1x1`, `depthwise 5x5 s2`, ...).
    public var layers: Bool
    /// Run residual `ADD`s and `PRELU`s in the convolutions' epilogues (``GraphRunner``'s default).
    public var fusingEpilogues = true
    /// Also time the plan without epilogue fusion, in rounds interleaved with the others.
    public var compareFusion = false

    /// Passes per round of one engine before the other engine's round.
    static let runsPerRound = 10

    /// The precision of the graphs' 1×1 convolutions (`GraphRunner`'s).
    public var precision: Precision

    public init(models: [Model], threads: [Int], runs: Int, compareTFLite: Bool, layers: Bool, precision: Precision = .fp32) {
        self.models = models; self.threads = threads; self.runs = runs; self.precision = precision
        self.compareTFLite = compareTFLite; self.layers = layers
    }

    public func run(log: (String) -> Void) throws -> [String: Any] {
        var report = BenchEnvironment.report(log: log)
        var rows: [[String: Any]] = []
        let peer = compareTFLite ? try TFLitePeer() : nil
        log("model                    threads  steps  median ms   min ms" + (compareFusion ? "  unfused ms  fused/unfused" : "")
            + (compareTFLite ? "  TFLite ms  TFLite min  ratio" : ""))
        for model in models {
            // The input, both engines': values spread evenly over [0, 1) (the golden-ratio
            // sequence), like the TFLite peer script's uniform noise.
            let shape = model.graph.values[model.graph.inputs[0]].shape
            let input = try Tensor(shape: shape, values: (0..<shape.reduce(1, *)).map {
                Float((Double($0) * 0.618_033_988_749_895).truncatingRemainder(dividingBy: 1))
            })
            for t in threads {
                let runner = try GraphRunner(graph: model.graph, threads: t, fusingEpilogues: fusingEpilogues, precision: precision)
                let unfused: GraphRunner? = try compareFusion
                    ? GraphRunner(graph: model.graph, threads: t, fusingEpilogues: false, precision: precision) : nil
                var row: [String: Any] = ["model": model.name, "threads": t, "steps": runner.stepCount,
                                          "fused_nodes": runner.fusedNodes.count, "precision": try precision.resolved().rawValue]
                let ours: Benchmark.Timing
                var theirs: [Double] = [], theirCPU: [Double] = [], ourCPU: [Double] = []
                var unfusedTiming: Benchmark.Timing?
                if peer != nil || unfused != nil {
                    var timer: OnnxRuntimePeer.ForwardTimer?
                    if let peer {
                        guard let tflite = model.tflite else {
                            throw BenchmarkError("--compare-tflite: the .tflite \(model.name) was imported from is not found (give the .tflite itself)")
                        }
                        timer = try peer.forwardTimer(model: tflite, input: input, threads: t)
                    }
                    for _ in 0..<3 { _ = try runner.run([input]); _ = try unfused?.run([input]) }
                    var samples: [Double] = [], unfusedSamples: [Double] = []
                    var done = 0
                    // Rounds: ours, ours unfused, theirs, so the host's load falls on all alike.
                    while done < runs {
                        let n = min(Self.runsPerRound, runs - done)
                        samples += try Benchmark.measure(warmup: 0, runs: n) {
                            let start = processCPUSeconds()
                            _ = try runner.run([input])
                            ourCPU.append((processCPUSeconds() - start) * 1e3)
                        }.samples
                        if let unfused {
                            unfusedSamples += try Benchmark.measure(warmup: 0, runs: n) { _ = try unfused.run([input]) }.samples
                        }
                        if let timer {
                            let round = try timer.round(runs: n)
                            theirs.append(round.median)
                            if let cpu = round.cpu { theirCPU.append(cpu) }
                        }
                        done += n
                    }
                    ours = Benchmark.Timing(samples: samples)
                    if unfused != nil { unfusedTiming = Benchmark.Timing(samples: unfusedSamples) }
                } else {
                    ours = try Benchmark.measure(warmup: 3, runs: runs, minimumSeconds: 0.5) { _ = try runner.run([input]) }
                }
                let median = ours.median * 1e3, minimum = ours.minimum * 1e3
                row["median_ms"] = median
                row["min_ms"] = minimum
                var line = String(format: "%-24@ %7d  %5d  %9.2f  %7.2f", model.name as NSString, t, runner.stepCount, median, minimum)
                if let unfusedTiming {
                    let unfusedMedian = unfusedTiming.median * 1e3
                    row["unfused_median_ms"] = unfusedMedian
                    line += String(format: "  %10.2f  %13.3f", unfusedMedian, median / unfusedMedian)
                }
                if !theirs.isEmpty {
                    let peerMedian = theirs.sorted()[theirs.count / 2], peerMinimum = theirs.min()!
                    row["tflite_median_ms"] = peerMedian
                    row["tflite_min_round_median_ms"] = peerMinimum
                    row["ratio"] = median / peerMedian
                    line += String(format: "  %9.2f  %10.2f  %5.2f", peerMedian, peerMinimum, median / peerMedian)
                    if !theirCPU.isEmpty, !ourCPU.isEmpty {
                        // CPU time per pass, both processes (every thread): on a busy host it leaves
                        // out the time spent descheduled, which the wall-time ratio counts.
                        let (ours, theirs) = (ourCPU.sorted()[ourCPU.count / 2], theirCPU.sorted()[theirCPU.count / 2])
                        row["cpu_ms"] = ours
                        row["tflite_cpu_ms"] = theirs
                        row["cpu_ratio"] = ours / theirs
                        line += String(format: "  CPU %.2f / %.2f ms: %.2f", ours, theirs, ours / theirs)
                    }
                }
                log(line)
                if layers {
                    var kinds: [[String: Any]] = []
                    let profile = try runner.profile([input], runs: 10)
                    let total = profile.reduce(0) { $0 + $1.seconds }
                    for entry in profile {
                        log(String(format: "    %-30@ %3d steps  %7.2f ms  %5.1f%%", entry.kind as NSString, entry.steps,
                                   entry.seconds * 1e3, 100 * entry.seconds / max(total, 1e-12)))
                        kinds.append(["kind": entry.kind, "steps": entry.steps, "ms": entry.seconds * 1e3])
                    }
                    row["steps_by_kind"] = kinds
                }
                rows.append(row)
            }
        }
        report["graphs"] = rows
        return report
    }
}

/// The TFLite runtime (ai-edge-litert's Interpreter, XNNPACK) on the same `.tflite` as a peer:
/// `scripts/litert-forward-server.py`, one interpreter for the whole run, timing inferences on
/// request between PoseKit's rounds.
struct TFLitePeer {
    let script: String

    /// Finds the script and checks that python3 imports numpy and ai_edge_litert.
    init() throws {
        guard let root = ModelLocator.packageRoot() else {
            throw BenchmarkError("--compare-tflite: the checkout this posekit was built from is gone (scripts/litert-forward-server.py lives there)")
        }
        script = URL(fileURLWithPath: root).appendingPathComponent("scripts/litert-forward-server.py").path
        guard FileManager.default.fileExists(atPath: script) else { throw BenchmarkError("--compare-tflite: \(script) not found") }
        let check = Process()
        check.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        check.arguments = ["python3", "-c", "import numpy, ai_edge_litert.interpreter"]
        check.standardOutput = FileHandle.nullDevice
        check.standardError = FileHandle.nullDevice
        try check.run()
        check.waitUntilExit()
        guard check.terminationStatus == 0 else {
            throw BenchmarkError("--compare-tflite needs python3 with numpy and ai-edge-litert (python3 -m pip install numpy ai-edge-litert)")
        }
    }

    /// An interpreter on `model` with `input` set (written to a temporary .npy), ready to time.
    func forwardTimer(model: String, input: Tensor, threads: Int) throws -> OnnxRuntimePeer.ForwardTimer {
        let file = FileManager.default.temporaryDirectory.appendingPathComponent("posekit-bench-input-\(getpid()).npy")
        try NumPyArray.encode(input).write(to: file)
        defer { try? FileManager.default.removeItem(at: file) }
        return try OnnxRuntimePeer.ForwardTimer(arguments: [script, model, file.path, "--threads", "\(threads)"],
                                                label: "--compare-tflite: litert-forward-server.py")
    }
}
