import ArgumentParser
import Foundation
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
        let images = try decode()
        guard images.count > 5 else { throw ValidationError("\(clip): \(images.count) frames; the benchmark needs more than 5") }
        var configuration = BlazePosePipeline.Configuration()
        configuration.segmentation = mask
        let pipeline = try BlazePosePipeline(detector: try GraphModelFile.load("pose_detection"),
                                             landmarker: try GraphModelFile.load("pose_landmark_full"),
                                             configuration: configuration, threads: threads)
        let peer = compareMediapipe ? try mediaPipePeer() : nil
        print("BlazePose per frame, tracking mode, \(images.count) frames of \(clip), \(threads) thread\(threads == 1 ? "" : "s")\(mask ? ", with the mask" : "")")
        var ratios: [Double] = []
        for round in 1...rounds {
            let (ours, found) = try time(pipeline, images)
            var line = String(format: "round %d: ours %.2f ms (pose in %d frames)", round, ours, found)
            if let peer {
                let theirs = try peer()
                ratios.append(ours / theirs.median)
                line += String(format: "; MediaPipe %.2f ms (pose in %d frames); ratio %.2f", theirs.median, theirs.found, ours / theirs.median)
            }
            print(line)
        }
        if !ratios.isEmpty {
            print(String(format: "ours / MediaPipe per frame: median of %d rounds %.2f", ratios.count, Median.of(ratios)))
        }
    }

    /// The clip's first frames as RGB images.
    private func decode() throws -> [RGBImage] {
        let reader = try MediaReader(path: clip)
        defer { reader.close() }
        var images: [RGBImage] = []
        while images.count < frames, let frame = try reader.next() { images.append(frame.rgb()) }
        return images
    }

    /// Our median milliseconds per frame (frames 5… of a run from a reset pipeline) and the frames with a pose.
    private func time(_ pipeline: BlazePosePipeline, _ images: [RGBImage]) throws -> (Double, Int) {
        pipeline.reset()
        var times: [Double] = [], found = 0
        for (index, image) in images.enumerated() {
            let start = MonotonicClock.now()
            let result = try pipeline.process(image, timestampMicroseconds: Int64(index + 1) * 33_333)
            times.append((MonotonicClock.now() - start) * 1000)
            if result != nil { found += 1 }
        }
        return (Median.of(Array(times.dropFirst(5))), found)
    }

    /// A function that runs MediaPipe's peer once on the clip: its median milliseconds and frames with a pose.
    private func mediaPipePeer() throws -> () throws -> (median: Double, found: Int) {
        guard let root = ModelLocator.packageRoot() else {
            throw ValidationError("--compare-mediapipe: cannot find the package root (../shared/tools/peers/mediapipe_peer.py)")
        }
        let script = URL(fileURLWithPath: root).deletingLastPathComponent().appendingPathComponent("shared/tools/peers/mediapipe_peer.py").path
        guard FileManager.default.fileExists(atPath: script) else { throw ValidationError("--compare-mediapipe: \(script) not found") }
        let (clip, frames, python) = (self.clip, self.frames, self.python)
        return {
            let process = Process()
            process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
            process.arguments = [python, script, "time-pose", clip, "--frames", String(frames)]
            let output = Pipe(), errors = Pipe()
            process.standardOutput = output
            process.standardError = errors
            try process.run()
            let data = output.fileHandleForReading.readDataToEndOfFile()
            let messages = errors.fileHandleForReading.readDataToEndOfFile()
            process.waitUntilExit()
            let text = String(decoding: data, as: UTF8.self)
            // "time-pose clip.mp4: 115 frames, median 23.41 ms, min 20.02 ms, found in 120 frames"
            guard process.terminationStatus == 0, let median = Self.number(after: "median ", in: text),
                  let found = Self.number(after: "found in ", in: text) else {
                let last = String(decoding: messages, as: UTF8.self).split(separator: "\n").last.map(String.init) ?? text
                throw ValidationError("--compare-mediapipe: the MediaPipe peer failed (\(python) needs mediapipe==0.10.14): \(last)")
            }
            return (median, Int(found))
        }
    }

    private static func number(after marker: String, in text: String) -> Double? {
        guard let range = text.range(of: marker) else { return nil }
        return Double(text[range.upperBound...].prefix { $0.isNumber || $0 == "." })
    }
}
