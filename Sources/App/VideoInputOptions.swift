import ArgumentParser
import Foundation
import PoseKit

/// Whether still images are one video (`--video`, MediaPipe's `static_image_mode` off) and at
/// which rate (`--fps`); shared by every command that finds poses in frames (`pose`, `actions`).
struct VideoInputOptions: ParsableArguments {
    @Flag(help: ArgumentHelp(
        "Read images (a stream of PNM images on a pipe, or several image files given in order) as the frames of one video at --fps: people get ids, keypoints are smoothed and a tracking model (BlazePose) follows the person from frame to frame, as on video. Y4M and other videos are video already."))
    var video = false

    @Option(name: .long, help: ArgumentHelp(
        "Frames per second of images read as video (--video), and of inputs that state no rate (\(Limits.framesPerSecond.text)).",
        valueName: "fps"))
    var fps: Double = PoseStream.fallbackFrameRate

    func validate() throws {
        try Limits.framesPerSecond.check(fps, "--fps")
    }

    /// `--fps` as a frame rate: whole numbers exactly (30 → 30:1, timed as a Y4M `F30:1` video is),
    /// others to 1/1000 frame per second.
    var frameRate: Ratio {
        fps == fps.rounded() ? Ratio(Int(fps), 1) : Ratio(Int((fps * 1000).rounded()), 1000)
    }
}
