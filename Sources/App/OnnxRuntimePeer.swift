import Foundation
import Tensor

/// ONNX Runtime's bare forward pass on the same published weights, timed by the peer script that
/// ships beside the checkout (`../shared/tools/peers/ort_peer.py`), for `bench pipeline
/// --compare-ort` (the ratio to it is measured in the same run, as the machine's load changes),
/// and layer by layer with ORT's profiler for `bench model --layers --compare-ort`
/// (`scripts/ort-layer-profile.py`, which builds the graph with the peer script's builder).
struct OnnxRuntimePeer {
    let script: String
    /// `scripts/ort-layer-profile.py` in the checkout.
    let layerScript: String
    /// The published weight file the bundle was imported from (its manifest names it).
    let weights: String
    let threads: Int
    /// Forward passes the script times per call (it reports their median).
    static let runs = 50

    /// Finds the script and the bundle's source weights, and checks that python3 can import
    /// numpy, onnx and onnxruntime; throws one line saying what is missing.
    init(bundle: WeightBundle, threads: Int) throws {
        guard let root = ModelLocator.packageRoot() else {
            throw CLIError("--compare-ort: the checkout this posekit was built from is gone (the peer script lives in its ../shared)")
        }
        let shared = URL(fileURLWithPath: root).deletingLastPathComponent().appendingPathComponent("shared")
        script = shared.appendingPathComponent("tools/peers/ort_peer.py").path
        layerScript = URL(fileURLWithPath: root).appendingPathComponent("scripts/ort-layer-profile.py").path
        for file in [script, layerScript] where !FileManager.default.fileExists(atPath: file) {
            throw CLIError("--compare-ort: \(file) not found")
        }
        let fileName = bundle.manifest.source.fileName
        let weightsDirectory = shared.appendingPathComponent("weights")
        let candidates = (try? FileManager.default.contentsOfDirectory(atPath: weightsDirectory.path)) ?? []
        guard let found = candidates.map({ weightsDirectory.appendingPathComponent($0).appendingPathComponent(fileName).path })
            .first(where: { FileManager.default.fileExists(atPath: $0) }) else {
            throw CLIError("--compare-ort: the published weights \(fileName) are not under \(weightsDirectory.path)")
        }
        weights = found
        self.threads = threads
        let check = try Self.python(["-c", "import numpy, onnx, onnxruntime"])
        guard check.status == 0 else {
            throw CLIError("--compare-ort needs python3 with numpy, onnx and onnxruntime (python3 -m pip install numpy onnx onnxruntime): \(check.lastLine)")
        }
    }

    /// The median milliseconds of ONNX Runtime's forward pass at `size` (one call of the script).
    func forwardMilliseconds(size: Int) throws -> Double {
        let result = try Self.python([script, weights, "--size", "\(size)", "--threads", "\(threads)", "--runs", "\(Self.runs)"])
        guard result.status == 0,
              let field = result.output.split(whereSeparator: \.isWhitespace).first(where: { $0.hasPrefix("median_ms=") }),
              let milliseconds = Double(field.dropFirst("median_ms=".count)) else {
            throw CLIError("--compare-ort: ort_peer.py failed: \(result.lastLine)")
        }
        return milliseconds
    }

    /// One node of ONNX Runtime's graph as its profiler timed it: best and median milliseconds.
    struct NodeTiming {
        let name: String, op: String
        let best: Double, median: Double
    }

    /// ONNX Runtime's graph nodes at `size` in execution order (after its graph optimizations:
    /// convolutions with their activation fused, NCHWc layout on x86), each timed over `runs` passes.
    func nodeTimings(size: Int, runs: Int) throws -> [NodeTiming] {
        let peerDirectory = URL(fileURLWithPath: script).deletingLastPathComponent().path
        let result = try Self.python([layerScript, peerDirectory, weights, "--size", "\(size)", "--threads", "\(threads)",
                                      "--runs", "\(runs)"])
        let nodes: [NodeTiming] = result.output.split(separator: "\n").compactMap { line in
            let fields = line.split(separator: " ")
            guard fields.count == 5, fields[0] == "node", let best = Double(fields[3]), let median = Double(fields[4]) else { return nil }
            return NodeTiming(name: String(fields[1]), op: String(fields[2]), best: best, median: median)
        }
        guard result.status == 0, !nodes.isEmpty else {
            throw CLIError("--compare-ort: ort-layer-profile.py failed: \(result.lastLine)")
        }
        return nodes
    }

    private static func python(_ arguments: [String]) throws -> (status: Int32, output: String, lastLine: String) {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        process.arguments = ["python3"] + arguments
        let output = Pipe(), errors = Pipe()
        process.standardOutput = output
        process.standardError = errors
        process.standardInput = FileHandle.nullDevice
        try process.run()
        // Read both pipes to the end before waiting, so a chatty child cannot block on a full pipe.
        nonisolated(unsafe) var errorData = Data()
        let drained = DispatchSemaphore(value: 0)
        DispatchQueue.global().async {
            errorData = errors.fileHandleForReading.readDataToEndOfFile()
            drained.signal()
        }
        let outputData = output.fileHandleForReading.readDataToEndOfFile()
        drained.wait()
        process.waitUntilExit()
        let text = String(decoding: outputData, as: UTF8.self)
        let lastLine = String(decoding: errorData, as: UTF8.self).split(separator: "\n").last.map(String.init)
            ?? text.split(separator: "\n").last.map(String.init) ?? "no output"
        return (process.terminationStatus, text, lastLine)
    }
}
