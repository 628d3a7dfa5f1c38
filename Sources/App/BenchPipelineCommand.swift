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
            Reads a 640x480 4:2:0 Y4M file (frames of a real clip from ../shared when ffmpeg and \
            the clip are there, else a synthetic pattern; written to the temporary directory, so \
            read from the page cache) through the same loop as `posekit pose clip.y4m`: reading, \
            Y4M parsing, fused YUV->RGB + resize into the network input, forward \
            pass, multi-person decoding, JSON Lines. Also times the parts on their own: frame \
            conversion (one core) and decoding a 33x33 grid with 10 people.

            Two schedules are timed, interleaved: the one `posekit pose` uses for video (one frame \
            in flight per thread, each on its own core; the most frames per second) and one frame \
            at a time on every thread (what images and --realtime use; the least latency). With \
            --compare-ort, ONNX Runtime's bare forward pass on the same weights and threads is \
            timed after each round (50 passes of one session, built once), so the ratios come \
            from one run on one machine state: the ratio of the medians, and the median of each \
            round's ratio to the passes right after it, which a slow phase of a shared host \
            spanning both cancels out of. Many short rounds (--frames 100 --rounds 15) make that \
            second figure steadier.

            EXAMPLES
              posekit bench pipeline
              posekit bench pipeline --sizes 257 --frames 300 --json
              posekit bench pipeline --sizes 257 --rounds 5 --compare-ort
              posekit bench pipeline --sizes 257 --frames 100 --rounds 15 --compare-ort
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
            let data = try JSONSerialization.data(withJSONObject: report, options: [.sortedKeys])
            print(String(decoding: data, as: UTF8.self))
        }
    }
}
