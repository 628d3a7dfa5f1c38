import Foundation
import FrameIO

extension ImagesAsVideo {
    /// The streams `inputs` make, in order: each input its own stream; `asVideo` (`--video`), every run of
    /// consecutive inputs that are not videos by their name (images, standard input, names
    /// without a known extension) one stream, whose images become frames 0, 1, 2, ...
    public static func streams(of inputs: [String], asVideo video: Bool) -> [[String]] {
        guard video else { return inputs.map { [$0] } }
        var streams: [[String]] = []
        var run: [String] = []
        for input in inputs {
            if Self.isVideo(input) {
                if !run.isEmpty { streams.append(run); run = [] }
                streams.append([input])
            } else {
                run.append(input)
            }
        }
        if !run.isEmpty { streams.append(run) }
        return streams
    }

    /// Whether `path` names a video by its extension (Y4M, MP4, MKV, ...) or is a capture device.
    public static func isVideo(_ path: String) -> Bool {
        if URL(fileURLWithPath: path).pathExtension.lowercased() == "y4m" || path.hasPrefix("/dev/") { return true }
        guard let format = MediaFormat.forExtension(of: path) else { return false }
        return format.media != .image
    }
}
