import Foundation
import FrameIO
import PoseCore

/// What `pose` and `actions` learn about a video file before reading it: its length for the
/// progress line, and a one-line warning when its frame rate is variable (`MediaProbe`).
public enum InputAnnouncement {
    /// Probes `input` (a video file; not standard input, a device or an image), warns about a
    /// variable frame rate and starts `reporter` on the input's expected length. Returns the
    /// probe (nil: not a video file, or not probed).
    @discardableResult
    public static func begin(_ input: String, _ reporter: ProgressReporter) -> MediaProbe? {
        reporter.begin(expectedFrames: nil)
        guard input != "-", !input.hasPrefix("/dev/"), RegularFile.exists(atPath: input),
              !MediaFormat.isPNMName(input), MediaFormat.forExtension(of: input)?.media != .image,
              let probe = MediaProbe.probe(input) else { return nil }
        if let warning = probe.variableFrameRateWarning(for: input) { printToStandardError("posekit: warning: " + warning) }
        reporter.begin(expectedFrames: probe.expectedFrames)
        return probe
    }
}
