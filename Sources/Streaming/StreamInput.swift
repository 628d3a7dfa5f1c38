import FrameIO

/// One stream of a frame command's run (an input, or with `--video` consecutive images), opened:
/// the input checked to exist and announced (its frame count for the progress line), an encoded
/// overlay given its sound, images made one video.
public struct StreamInput {
    /// The stream's first input (named in errors and in the JSON's "source").
    public let input: String
    /// The images as one video (`--video`), else nil.
    public let images: ImagesAsVideo?

    /// Opens `stream`, its images one video at `frameRate` when `asVideo` (`--video`), `overlay`
    /// the annotated frames' writer, `reporter` started on the input's length.
    public init(_ stream: [String], asVideo: Bool, frameRate: Ratio, overlay: MediaWriter?, _ reporter: ProgressReporter) throws {
        for input in stream { try MediaDirectory.requireFound(input) }
        input = stream[0]
        let probe = stream.count == 1 ? InputAnnouncement.begin(input, reporter) : nil
        // An encoded overlay of a video with sound keeps the sound.
        if let overlay, probe?.hasAudio == true, overlay.audioSource == nil { overlay.audioSource = input }
        images = asVideo ? ImagesAsVideo(paths: stream, frameRate: frameRate) : nil
    }

    /// The input frame `index` comes from.
    public func source(ofFrame index: Int) -> String { images?.inputs.input(ofFrame: index) ?? input }
}
