import Foundation
import Tensor

/// ONNX Runtime's bare forward pass on the same published weights, built by the peer script that
/// ships beside the checkout (`../shared/tools/peers/ort_peer.py`): timed between the rounds of
/// `bench pipeline --compare-ort` (`scripts/ort-forward-server.py`, one session for the whole
/// run, so the ratio to it is measured in the same run as the machine's load changes), and layer
/// by layer with ORT's profiler for `bench model --layers --compare-ort`
/// (`scripts/ort-layer-profile.py`). Both scripts build the graph with the peer script's builder.
struct OnnxRuntimePeer {
    /// `../shared/tools/peers`, which holds the peer script `ort_peer.py` both scripts import.
    let peerDirectory: String
    /// `scripts/ort-layer-profile.py` in the checkout.
    let layerScript: String
    /// `scripts/ort-forward-server.py` in the checkout.
    let forwardScript: String
    /// The published weight file the bundle was imported from (its manifest names it).
    let weights: String
    let threads: Int
    /// Forward passes the forward server times after each round (it reports their median).
    static let runs = 50

    /// Finds the script and the bundle's source weights, and checks that python3 can import
    /// numpy, onnx and onnxruntime; throws one line saying what is missing.
    init(bundle: WeightBundle, threads: Int) throws {
        guard let root = ModelLocator.packageRoot() else {
            throw BenchmarkError("--compare-ort: the checkout this posekit was built from is gone (the peer script lives in its ../shared)")
        }
        let shared = URL(fileURLWithPath: root).deletingLastPathComponent().appendingPathComponent("shared")
        peerDirectory = shared.appendingPathComponent("tools/peers").path
        let peerScript = URL(fileURLWithPath: peerDirectory).appendingPathComponent("ort_peer.py").path
        layerScript = URL(fileURLWithPath: root).appendingPathComponent("scripts/ort-layer-profile.py").path
        forwardScript = URL(fileURLWithPath: root).appendingPathComponent("scripts/ort-forward-server.py").path
        for file in [peerScript, layerScript, forwardScript] where !FileManager.default.fileExists(atPath: file) {
            throw BenchmarkError("--compare-ort: \(file) not found")
        }
        let fileName = bundle.manifest.source.fileName
        let weightsDirectory = shared.appendingPathComponent("weights")
        let candidates = (try? FileManager.default.contentsOfDirectory(atPath: weightsDirectory.path)) ?? []
        guard let found = candidates.map({ weightsDirectory.appendingPathComponent($0).appendingPathComponent(fileName).path })
            .first(where: { FileManager.default.fileExists(atPath: $0) }) else {
            throw BenchmarkError("--compare-ort: the published weights \(fileName) are not under \(weightsDirectory.path)")
        }
        weights = found
        self.threads = threads
        let check = try Self.python(["-c", "import numpy, onnx, onnxruntime"])
        guard check.status == 0 else {
            throw BenchmarkError("--compare-ort needs python3 with numpy, onnx and onnxruntime (python3 -m pip install numpy onnx onnxruntime): \(check.lastLine)")
        }
    }

    /// An ONNX Runtime session at `size`, built once, that times forward passes on request.
    func forwardTimer(size: Int) throws -> ForwardTimer {
        try ForwardTimer(arguments: [forwardScript, peerDirectory, weights, "--size", "\(size)", "--threads", "\(threads)"])
    }

    /// A running `scripts/ort-forward-server.py`: one Python process and one graph build, asked for
    /// a batch of timed forward passes between PoseKit's rounds. Closing its input ends it.
    final class ForwardTimer {
        private let process = Process()
        private let requests: FileHandle
        private let replies: FileHandle
        private var pending = Data()
        private let errors = LastLine()

        /// What errors name first.
        private let label: String

        /// Starts `python3 arguments…` and waits for its `ready`; `label` starts every error line.
        init(arguments: [String], label: String = "--compare-ort: ort-forward-server.py") throws {
            self.label = label
            let input = Pipe(), output = Pipe(), errorPipe = Pipe()
            process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
            process.arguments = ["python3"] + arguments
            process.standardInput = input
            process.standardOutput = output
            process.standardError = errorPipe
            requests = input.fileHandleForWriting
            replies = output.fileHandleForReading
            let errors = self.errors
            errorPipe.fileHandleForReading.readabilityHandler = { handle in
                let data = handle.availableData
                if data.isEmpty { handle.readabilityHandler = nil } else { errors.append(data) }
            }
            try process.run()
            guard let line = try readLine() else { throw ended("ended before it was ready") }
            guard line == "ready" else { throw failure("did not start: \(line.prefix(120))") }
        }

        deinit {
            try? requests.close()
            process.waitUntilExit()
        }

        /// The median milliseconds of `runs` forward passes, timed now.
        func medianMilliseconds(runs: Int) throws -> Double { try round(runs: runs).median }

        /// `runs` forward passes timed now: their median wall milliseconds, and the median CPU
        /// milliseconds the peer process spent per pass (all its threads), when the script reports it.
        func round(runs: Int) throws -> (median: Double, cpu: Double?) {
            do { try requests.write(contentsOf: Data("run \(runs)\n".utf8)) } catch { throw ended("stopped") }
            guard let line = try readLine() else { throw ended("ended") }
            func field(_ name: String) -> Double? {
                line.split(separator: " ").first { $0.hasPrefix(name + "=") }.flatMap { Double($0.dropFirst(name.count + 1)) }
            }
            guard line.hasPrefix("median_ms="), let milliseconds = field("median_ms") else {
                throw failure("answered \(line.prefix(120))")
            }
            return (milliseconds, field("cpu_ms"))
        }

        /// The next line the script printed, or nil at its end.
        private func readLine() throws -> String? {
            while true {
                if let newline = pending.firstIndex(of: UInt8(ascii: "\n")) {
                    let line = String(decoding: pending[pending.startIndex..<newline], as: UTF8.self)
                    pending.removeSubrange(pending.startIndex...newline)
                    return line
                }
                let chunk = replies.availableData
                guard !chunk.isEmpty else { return nil }
                pending.append(chunk)
            }
        }

        private func failure(_ what: String) -> BenchmarkError {
            BenchmarkError("\(label) \(what)")
        }

        /// The script has gone: says how, with the last line it wrote to standard error.
        private func ended(_ what: String) -> BenchmarkError {
            process.waitUntilExit()
            let how = process.terminationReason == .uncaughtSignal
                ? "killed by signal \(process.terminationStatus)" : "exit status \(process.terminationStatus)"
            return failure("\(what) (\(how)): \(errors.line ?? "nothing on standard error")")
        }
    }

    /// The last non-empty line of a child's standard error, collected as it arrives.
    final class LastLine: @unchecked Sendable {
        private let lock = NSLock()
        private var text = ""
        func append(_ data: Data) {
            lock.lock(); defer { lock.unlock() }
            text = String((text + String(decoding: data, as: UTF8.self)).suffix(4096))
        }
        var line: String? {
            lock.lock(); defer { lock.unlock() }
            return text.split(separator: "\n").last.map(String.init)
        }
    }

    /// One node of ONNX Runtime's graph as its profiler timed it: best and median milliseconds.
    struct NodeTiming {
        let name: String, op: String
        let best: Double, median: Double
    }

    /// ONNX Runtime's graph nodes at `size` in execution order (after its graph optimizations:
    /// convolutions with their activation fused, NCHWc layout on x86), each timed over `runs` passes.
    func nodeTimings(size: Int, runs: Int) throws -> [NodeTiming] {
        let result = try Self.python([layerScript, peerDirectory, weights, "--size", "\(size)", "--threads", "\(threads)",
                                      "--runs", "\(runs)"])
        let nodes: [NodeTiming] = result.output.split(separator: "\n").compactMap { line in
            let fields = line.split(separator: " ")
            guard fields.count == 5, fields[0] == "node", let best = Double(fields[3]), let median = Double(fields[4]) else { return nil }
            return NodeTiming(name: String(fields[1]), op: String(fields[2]), best: best, median: median)
        }
        guard result.status == 0, !nodes.isEmpty else {
            throw BenchmarkError("--compare-ort: ort-layer-profile.py failed: \(result.lastLine)")
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
