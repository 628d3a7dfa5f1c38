import ArgumentParser
import Foundation
import KernelBenchmarks
import MediaPipe
import ModelGraph
import PoseKit

/// `posekit bench hands`: MediaPipe's hand pipeline (palm detector, landmarks, tracking) per video
/// frame, as `mediapipe_peer.py time-hands` times MediaPipe itself on the same clip.
struct BenchHands: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "hands",
        abstract: "Time per frame of the hand pipeline in video mode (palms, landmarks, tracking).",
        discussion: """
            Decodes the first --frames frames of a clip into memory, then runs the hand pipeline \
            over them in video mode (MediaPipe's tracking: the palm detector only while fewer than \
            --max-hands hands are tracked), --rounds times, and prints the median time per frame \
            (the first 5 frames of each round left out, as mediapipe_peer.py time-hands does) and \
            how many frames had a hand. Decoding is not timed. scripts/hands-speed.sh interleaves \
            these rounds with MediaPipe's own on the same frames, both on one core.

            EXAMPLES
              posekit bench hands \\
                ../shared/media/videos/409416541_Independent-Study__Push_Up.mp4
              posekit bench hands clip.mp4 --frames 100 --rounds 3 --threads 1 --json
            """)

    @Argument(help: "A video (any format posekit reads).")
    var input: String

    @Option(help: "Frames per round (\(Limits.benchFrames.text)).")
    var frames = 200

    @Option(help: "Timed passes over the frames (\(Limits.benchRounds.text)).")
    var rounds = 1

    @Option(help: "Worker threads per network pass (\(Limits.threads.text)).")
    var threads = 1

    @Option(help: ArgumentHelp("Hand models: full or lite (as posekit hands).", valueName: "full|lite"))
    var handModel: HandDetector.Model = HandDetector.Configuration.default.model

    @Option(help: "At most this many hands (1...20).")
    var maxHands = HandDetector.Configuration.default.maximumHands

    @Option(help: ArgumentHelp("Arithmetic of the networks' 1x1 convolutions (as for hands).", valueName: "fp32|bf16|int8|auto"))
    var precision: Precision = .fp32

    @Flag(help: "Print one JSON object.")
    var json = false

    func validate() throws {
        try Limits.benchFrames.check(frames, "--frames")
        try Limits.benchRounds.check(rounds, "--rounds")
        try Limits.threads.check(threads, "--threads")
        try Limits.maxHands.check(maxHands, "--max-hands")
    }

    func run() throws {
        try precision.require()
        let images = try MediaPipePipelineBenchmark.frames(of: input, count: frames)
        func load(_ name: String) throws -> GraphModel {
            let url = try ModelLocator.resolve(name)
            return try CLIError.reading(url.path) {
                try GraphModel(graph: try Graph(bundle: try WeightBundle(contentsOf: url)), threads: threads, precision: precision)
            }
        }
        var settings = HandLandmarkPipeline.Configuration()
        settings.maximumHands = maxHands
        settings.threads = threads
        let pipeline = HandLandmarkPipeline(palmDetector: try load(handModel.palmDetectorBundle),
                                            landmarker: try load(handModel.landmarkBundle), configuration: settings)
        let (medians, found) = try MediaPipePipelineBenchmark.rounds(pipeline, images, count: rounds)
        let median = Median.of(medians)
        if json {
            let report: [String: Any] = ["input": input, "frames": images.count, "rounds": rounds, "threads": threads,
                                         "hand_model": handModel.rawValue, "median_ms": median, "round_medians_ms": medians,
                                         "frames_with_hands": found]
            print(try BenchmarkReport.json(report))
        } else {
            let name = (input as NSString).lastPathComponent
            print("hands \(name): \(images.count - MediaPipePipelineBenchmark.warmUpFrames) frames, median \(String(format: "%.2f", median)) ms, found in \(found) frames")
        }
    }
}
