import ActionNet
import ArgumentParser
import Foundation
import KernelBenchmarks
import Tensor

/// `posekit bench actions`: time to classify one window, ActionNet against Create ML classifiers.
struct BenchActions: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "actions",
        abstract: "Time one action-classifier window on one core: ActionNet and Create ML classifiers (.mlmodel), side by side.",
        discussion: """
            Each round classifies one window with every classifier in turn (interleaved, so all \
            see the same phases of a shared machine), on one core: ActionNet's temporal \
            convolutions (60 frames × 51 features) and each Create ML model's layer graph \
            ([T, 3, 18]). Prints the median and fastest milliseconds per window and GFLOP per \
            window (2 per multiply-add of the convolutions). The windows are fixed pseudo-random \
            values: the time does not depend on them.

            EXAMPLES
              posekit bench actions
              posekit bench actions --classifiers ../shared/weights/createml-exercise-classifier/ExerciseClassifier.mlmodel
            """)

    @Option(help: "ActionNet weights (name or path).")
    var weights = ActionRecognizer.defaultWeights

    @Option(parsing: .upToNextOption, help: "Create ML classifiers (.mlmodel; default: the two in $POSEKIT_SHARED or ../shared/weights).")
    var classifiers: [String] = []

    @Option(help: "Timed rounds (the median is reported; \(Limits.benchRuns.text)).")
    var runs = 50

    func validate() throws { try Limits.benchRuns.check(runs, "--runs") }

    /// The Create ML classifiers PoseKit's shared data holds.
    static var sharedClassifiers: [String] {
        let shared = ProcessInfo.processInfo.environment["POSEKIT_SHARED"] ?? "../shared"
        return ["createml-exercise-classifier/ExerciseClassifier.mlmodel", "createml-player-action-classifier/PlayerActionClassifier.mlmodel"]
            .map { "\(shared)/weights/\($0)" }.filter { FileManager.default.fileExists(atPath: $0) }
    }

    func run() throws {
        BLASThreads.ensureSingleThreaded()
        let url = try ModelLocator.resolve(weights)
        let (net, _) = try CLIError.reading(url.path) { try ActionWeightsFile.load(contentsOf: url) }
        let a = net.architecture
        var state: UInt64 = 0x9E37_79B9_7F4A_7C15
        func next() -> Float {  // xorshift: a fixed window, no dependence on a seeded library
            state ^= state << 13; state ^= state >> 7; state ^= state << 17
            return Float(state >> 40) / Float(1 << 24)
        }
        let features = (0..<(a.windowLength * a.inputChannels)).map { _ in next() * 2 - 1 }
        let paths = classifiers.isEmpty ? Self.sharedClassifiers : classifiers
        let models = try paths.map { try CreateMLActionClassifier.loading($0) }
        var names = ["ActionNet (\(url.lastPathComponent))"]
        // ActionNet: per layer 2·T·k·Cin·Cout (same padding, stride 1) and the dense layer.
        var flops = [2.0 * Double(a.windowLength * a.kernel) * Double(a.inputChannels * a.channels1 + a.channels1 * a.channels2)
                     + 2.0 * Double(a.channels2 * a.classes)]
        var bodies: [() throws -> Void] = [{ _ = net.probabilities(features: features) }]
        for model in models {
            let window = (0..<(model.windowLength * VisionPoseRow.count)).map { _ in next() }
            names.append("\(URL(fileURLWithPath: model.fileName).lastPathComponent) (\(model.layerCount) layers)")
            flops.append(2.0 * Double(model.multiplyAddsPerWindow))
            bodies.append { _ = try model.classify(window) }
        }
        let timings = try Benchmark.measureInterleaved(warmup: 3, runs: runs, bodies)
        print("one window on one core, median of \(runs) interleaved rounds (OpenBLAS \(BLASThreads.coreName) kernels)")
        for (i, name) in names.enumerated() {
            let t = timings[i]
            print(String(format: "  %-42@ %8.3f ms median  %8.3f ms min  %7.3f GFLOP  %6.1f GFLOP/s",
                         name as NSString, t.median * 1e3, t.minimum * 1e3, flops[i] / 1e9, Benchmark.gflops(flops: flops[i], seconds: t.median)))
        }
    }
}
