import ArgumentParser
import Foundation
import ModelFiles
import KernelBenchmarks
import MediaPipe
import ModelGraph
import PoseKit

/// `posekit bench blazepose`: BlazePose's whole pipeline per video frame (MediaPipe's tracking mode),
/// against MediaPipe itself on the same frames, in interleaved rounds.
struct BenchBlazePose: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "blazepose",
        abstract: "Time BlazePose per video frame (tracking mode), optionally against MediaPipe itself.",
        discussion: """
        Decodes the first --frames frames of CLIP, then runs BlazePose over them as a video (MediaPipe's \
        tracking mode: the detector on the first frame and after a loss, the landmarks on every frame, \
        MediaPipe's filters) and prints the median time per frame, the first 5 frames left out (as the \
        peer does). --compare-mediapipe runs MediaPipe 0.10.14's own pose solution on the same frames \
        (../shared/tools/peers/mediapipe_peer.py time-pose, model complexity 1, XNNPACK) between our \
        rounds and prints our time over its time per round and their median. MediaPipe runs its \
        inference on one thread; give --threads 1 for a like-for-like ratio. The host's load moves \
        both; compare only ratios from one run.

        EXAMPLES
          posekit bench blazepose clip.mp4 --threads 1
          posekit bench blazepose clip.mp4 --threads 1 --compare-mediapipe \\
            --python .cache/peers-venv/bin/python
        """
    )

    @Argument(help: ArgumentHelp("A video (any format FrameIO reads).", valueName: "clip"), completion: .file())
    var clip: String

    @Option(help: ArgumentHelp("Frames timed per round (1...10000).", valueName: "n"))
    var frames = 120

    @Option(help: ArgumentHelp("Rounds (each: ours, then MediaPipe's with --compare-mediapipe) (1...50).", valueName: "n"))
    var rounds = 3

    @Option(help: ArgumentHelp("Threads our models run on.", valueName: "n"))
    var threads = 1

    @Option(help: ArgumentHelp("Arithmetic of the graphs' 1x1 convolutions (as for pose).", valueName: "fp32|bf16|int8|auto"))
    var precision: Precision = .fp32

    @Flag(help: "Also compute the person mask (the segmentation branch).")
    var mask = false

    @Flag(help: "Also time MediaPipe's own pose pipeline on the same frames, interleaved with our rounds.")
    var compareMediapipe = false

    @Option(help: ArgumentHelp("With --compare-mediapipe: the Python that imports mediapipe 0.10.14.", valueName: "path"))
    var python = "python3"

    func validate() throws {
        try Limits.threads.check(threads, "--threads")
        guard (1...10_000).contains(frames) else { throw ValidationError("--frames must be 1...10000") }
        guard (1...50).contains(rounds) else { throw ValidationError("--rounds must be 1...50") }
    }

    func run() throws {
        try precision.require()
        let images = try MediaPipePipelineBenchmark.frames(of: clip, count: frames)
        var configuration = BlazePosePipeline.Configuration()
        configuration.segmentation = mask
        let pipeline = try BlazePosePipeline(detector: try GraphModelFile.load(BlazePoseDetector.detectorModel),
                                             landmarker: try GraphModelFile.load(BlazePoseDetector.landmarkModel),
                                             configuration: configuration, threads: threads, precision: precision)
        let peer = try compareMediapipe ? MediaPipePipelineBenchmark.MediaPipePeer(task: "time-pose", clip: clip, frames: frames, python: python) : nil
        print("BlazePose per frame, tracking mode, \(images.count) frames of \(clip), \(threads) thread\(threads == 1 ? "" : "s")\(mask ? ", with the mask" : "")")
        try MediaPipePipelineBenchmark.rounds(pipeline, images, count: rounds, against: peer, print: { print($0) })
    }
}
