import ActionNet
import Foundation
import Tensor

/// The measurements behind `posekit bench actions`: one action-classifier window on one core,
/// ActionNet and Create ML classifiers interleaved.
public struct ActionClassifierBenchmark {
    /// ActionNet's weights (name or path).
    public var weights: String
    /// Create ML classifiers (`.mlmodel`); empty: ``sharedClassifiers``.
    public var classifiers: [String]
    public var runs: Int

    public init(weights: String, classifiers: [String], runs: Int) {
        self.weights = weights; self.classifiers = classifiers; self.runs = runs
    }

    /// The Create ML classifiers PoseKit's shared data holds.
    public static var sharedClassifiers: [String] {
        let shared = ProcessInfo.processInfo.environment["POSEKIT_SHARED"] ?? "../shared"
        return ["createml-exercise-classifier/ExerciseClassifier.mlmodel", "createml-player-action-classifier/PlayerActionClassifier.mlmodel"]
            .map { "\(shared)/weights/\($0)" }.filter { FileManager.default.fileExists(atPath: $0) }
    }

    /// Prints one line per classifier: median and fastest ms per window, GFLOP per window, GFLOP/s.
    public func run(log: (String) -> Void) throws {
        BLASThreads.ensureSingleThreaded()
        let url = try ModelLocator.resolve(weights)
        let (net, _) = try ActionWeightsFile.load(contentsOf: url)
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
        log("one window on one core, median of \(runs) interleaved rounds (\(GEMMKernel.preferred.description))")
        if let fallback = BenchEnvironment.openBLASFallback(core: BLASThreads.coreName) { log("warning: " + fallback) }
        for (i, name) in names.enumerated() {
            let t = timings[i]
            log(String(format: "  %-42@ %8.3f ms median  %8.3f ms min  %7.3f GFLOP  %6.1f GFLOP/s",
                         name as NSString, t.median * 1e3, t.minimum * 1e3, flops[i] / 1e9, Benchmark.gflops(flops: flops[i], seconds: t.median)))
        }
    }
}
