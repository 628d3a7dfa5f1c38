import ArgumentParser
import Foundation
import KernelBenchmarks
import PoseKit

/// `posekit bench pipeline`: end-to-end frames/s of Y4M in → JSON Lines out, plus the parts.
struct BenchPipeline: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "pipeline",
        abstract: "End-to-end frames/s: 640x480 Y4M stream -> poses -> JSON Lines.",
        discussion: """
              posekit bench pipeline                           # 257, 353 and 513
              posekit bench pipeline --sizes 257 --frames 300 --json
              posekit bench pipeline --sizes 257 --frames 100 --rounds 15 --compare-ort

            A 640x480 Y4M file through the same loop as `posekit pose clip.y4m` (reading, \
            conversion, network, decoding, JSON Lines), both schedules interleaved: frames in \
            flight (video) and one frame at a time (images, --realtime). What is timed and how the \
            ONNX Runtime ratio is taken: docs/cli.md "Benchmarks".
            """)

    @Option(help: "Model name or path.")
    var model = ModelLocator.defaultModel

    @Option(parsing: .upToNextOption, help: "Input sizes (\(Limits.inputSize.text)).")
    var sizes: [Int] = [257, 353, 513]

    @Option(help: "Worker threads (\(Limits.threads.text)).")
    var threads = Parallelism.defaultThreads

    @Option(help: "Frames per measurement (\(Limits.benchFrames.text)).")
    var frames = 60

    @Option(help: "Timed passes over the stream per schedule, interleaved (\(Limits.benchRounds.text)); the median is reported.")
    var rounds = 3

    @Flag(help: ArgumentHelp(
        "Also time ONNX Runtime's bare forward pass on the same published weights after each of our rounds (the graph of ../shared/tools/peers/ort_peer.py, run by scripts/ort-forward-server.py; needs python3 with numpy, onnx and onnxruntime) and print each schedule's ratio to it."))
    var compareOrt = false

    @Flag(help: "Print one JSON object.")
    var json = false

    func validate() throws {
        try Limits.benchFrames.check(frames, "--frames")
        try Limits.benchRounds.check(rounds, "--rounds")
        try Limits.threads.check(threads, "--threads")
        try Limits.inputSize.check(sizes, "--sizes")
    }

    func run() async throws {
        let benchmark = PipelineBenchmark(model: model, sizes: sizes, threads: threads, frames: frames, rounds: rounds,
                                          compareOrt: compareOrt)
        let report = try await benchmark.run(log: json ? { _ in } : { StandardOutput.printLine($0) })
        if json {
            print(try BenchmarkReport.json(report))
        }
    }
}
