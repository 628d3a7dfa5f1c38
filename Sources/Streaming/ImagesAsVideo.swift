import Foundation
import FrameIO
import PoseCore

/// Still images made one video (`posekit --video`, MediaPipe's `static_image_mode` off): the
/// images of several inputs in order (files, or a stream of PNM images on a pipe) become frames
/// 0, 1, 2, ... at `frameRate`, timed `index / rate` as a Y4M video's frames are, so tracking,
/// identities, smoothing and a model's state run as on video. Frames that are video already
/// (Y4M, MP4, ...) pass through as they are.
///
///     let frames = ImagesAsVideo(paths: ["f000.ppm", "f001.ppm", "f002.ppm"], frameRate: Ratio(30, 1))
///     for try await detected in detector.poses(from: frames) { print(detected.index, detected.poses.count) }
///
/// The inputs are opened one after the other (`MediaFrames`), each when the last has ended; an
/// error names its input and ends the sequence. ``inputs`` says which input the n-th frame came from.
public struct ImagesAsVideo: AsyncSequence, Sendable {
    public typealias Element = VideoFrame

    /// The inputs, in order.
    public let paths: [String]
    /// The video's frame rate (positive).
    public let frameRate: Ratio
    private let limits: FrameLimits
    /// Which input each frame came from, filled as frames are read.
    public let inputs = FrameInputs()

    /// The images of `paths` as one video at `frameRate` (`precondition`: a known, positive rate).
    public init(paths: [String], frameRate: Ratio, limits: FrameLimits = .default) {
        precondition(!frameRate.isUnknown && frameRate.numerator > 0 && frameRate.denominator > 0, "a video needs a positive frame rate")
        self.paths = paths
        self.frameRate = frameRate
        self.limits = limits
    }

    public func makeAsyncIterator() -> Iterator { Iterator(sequence: self) }

    /// Reads the inputs in turn.
    public struct Iterator: AsyncIteratorProtocol {
        let sequence: ImagesAsVideo
        private var input = 0
        private var current: MediaFrames.Iterator?
        private var index = 0

        init(sequence: ImagesAsVideo) { self.sequence = sequence }

        public mutating func next() async throws -> VideoFrame? {
            while input < sequence.paths.count {
                if current == nil { current = MediaFrames(path: sequence.paths[input], limits: sequence.limits).makeAsyncIterator() }
                guard var frame = try await current!.next() else {
                    current = nil
                    input += 1
                    continue
                }
                if frame.isStillImage { ImagesAsVideo.makeVideoFrame(&frame, index: index, frameRate: sequence.frameRate) }
                sequence.inputs.record(frame: index, input: sequence.paths[input])
                index += 1
                return frame
            }
            return nil
        }
    }

    /// `frame` as frame `index` of a video at `frameRate` (the time a Y4M reader gives it).
    public static func makeVideoFrame(_ frame: inout VideoFrame, index: Int, frameRate: Ratio) {
        frame.isStillImage = false
        frame.index = index
        frame.frameRate = frameRate
        frame.time = Double(index) * Double(frameRate.denominator) / Double(frameRate.numerator)
    }
}

/// Which input each frame of an ``ImagesAsVideo`` came from (read while or after the frames are
/// read; thread-safe).
public final class FrameInputs: @unchecked Sendable {
    private let lock = NSLock()
    /// The first frame index of each input, with its path, in order.
    private var starts: [(frame: Int, path: String)] = []

    /// The input frame `index` was read from, once it has been read.
    public func input(ofFrame index: Int) -> String? {
        lock.lock(); defer { lock.unlock() }
        return starts.last { $0.frame <= index }?.path
    }

    func record(frame: Int, input path: String) {
        lock.lock(); defer { lock.unlock() }
        if starts.last?.path != path || starts.isEmpty { starts.append((frame, path)) }
    }
}
