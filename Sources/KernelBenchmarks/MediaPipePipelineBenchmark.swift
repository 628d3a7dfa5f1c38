import Foundation
import FrameIO
import MediaPipe
import PoseCore
import Tensor

/// The measurements behind `posekit bench hands` and `posekit bench blazepose`: MediaPipe's hand
/// and BlazePose pipelines per video frame as PoseKit runs them (tracking mode: the detector only
/// when tracking has nothing to follow), and MediaPipe 0.10.14 itself on the same frames
/// (`../shared/tools/peers/mediapipe_peer.py`) for ratios taken in interleaved rounds.
///
/// Each round times every frame from a reset pipeline and reports the median of frames 5 and
/// later (the peer leaves the same 5 out: the first detections and allocations are not the
/// steady state). Decoding is not timed: the frames are decoded into memory first.
public enum MediaPipePipelineBenchmark {
    /// Frames of a round left out of its median.
    public static let warmUpFrames = 5

    /// The first `count` frames of the video at `path` as RGB images.
    /// - Throws: ``BenchmarkError`` when the clip has no more than ``warmUpFrames`` frames.
    public static func frames(of path: String, count: Int) throws -> [RGBImage] {
        let reader = try MediaReader(path: path)
        defer { reader.close() }
        var images: [RGBImage] = []
        while images.count < count, let frame = try reader.next() { images.append(frame.rgb()) }
        guard images.count > warmUpFrames else {
            throw BenchmarkError("\(path): \(images.count) frames; the benchmark needs more than \(warmUpFrames)")
        }
        return images
    }

    /// One round of the hand pipeline over `images` as a video: the median milliseconds per frame
    /// and the frames in which a hand was found.
    public static func round(_ pipeline: HandLandmarkPipeline, _ images: [RGBImage]) throws -> (median: Double, found: Int) {
        pipeline.reset()
        return try round(images) { image, _ in try !pipeline.processVideoFrame(image).hands.isEmpty }
    }

    /// One round of BlazePose over `images` as a video at 30 frames/s: the median milliseconds per
    /// frame and the frames with a pose.
    public static func round(_ pipeline: BlazePosePipeline, _ images: [RGBImage]) throws -> (median: Double, found: Int) {
        pipeline.reset()
        return try round(images) { image, index in
            try pipeline.process(image, timestampMicroseconds: Int64(index + 1) * 33_333) != nil
        }
    }

    /// Times `process` on each image (index given); the median past the warm-up and the count of `true`s.
    static func round(_ images: [RGBImage], _ process: (RGBImage, Int) throws -> Bool) throws -> (median: Double, found: Int) {
        var times: [Double] = [], found = 0
        for (index, image) in images.enumerated() {
            let start = MonotonicClock.now()
            let hit = try process(image, index)
            times.append((MonotonicClock.now() - start) * 1000)
            if hit { found += 1 }
        }
        return (Median.of(Array(times.dropFirst(warmUpFrames))), found)
    }

    /// MediaPipe's own pipeline on the same clip, once per call: `mediapipe_peer.py time-pose` or
    /// `time-hands` (model complexity 1, XNNPACK), its median milliseconds per frame and the frames
    /// with a result. The peer script is found beside the PoseKit checkout (`../shared/tools/peers/`).
    public struct MediaPipePeer: Sendable {
        /// `time-pose` or `time-hands`.
        public let task: String
        public let clip: String
        public let frames: Int
        /// The Python that imports mediapipe 0.10.14.
        public let python: String
        let script: String

        /// - Throws: ``BenchmarkError`` when the peer script cannot be found.
        public init(task: String, clip: String, frames: Int, python: String) throws {
            guard let root = ModelLocator.packageRoot() else {
                throw BenchmarkError("cannot find the package root (../shared/tools/peers/mediapipe_peer.py)")
            }
            script = URL(fileURLWithPath: root).deletingLastPathComponent().appendingPathComponent("shared/tools/peers/mediapipe_peer.py").path
            guard FileManager.default.fileExists(atPath: script) else { throw BenchmarkError("\(script) not found") }
            (self.task, self.clip, self.frames, self.python) = (task, clip, frames, python)
        }

        /// Runs the peer once.
        /// - Throws: ``BenchmarkError`` naming the peer's last message when it fails.
        public func run() throws -> (median: Double, found: Int) {
            let process = Process()
            process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
            process.arguments = [python, script, task, clip, "--frames", String(frames)]
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
                throw BenchmarkError("the MediaPipe peer failed (\(python) needs mediapipe==0.10.14): \(last)")
            }
            return (median, Int(found))
        }

        static func number(after marker: String, in text: String) -> Double? {
            guard let range = text.range(of: marker) else { return nil }
            return Double(text[range.upperBound...].prefix { $0.isNumber || $0 == "." })
        }
    }
}
