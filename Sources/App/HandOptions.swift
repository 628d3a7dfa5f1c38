import ArgumentParser
import MediaPipe
import PoseKit

/// Which hand models run and how their results read; shared by `hands` and `pose --hands`. The
/// defaults are the library's (``HandDetector/Configuration``).
struct HandOptions: ParsableArguments {
    private static let defaults = HandDetector.Configuration.default

    @Option(name: .long, help: ArgumentHelp(
        "MediaPipe's hand models: full (palm_detection_full + hand_landmark_full) or lite (both _lite: faster, less accurate).",
        valueName: "full|lite"))
    var handModel: HandDetector.Model = defaults.model

    @Option(name: .long, help: ArgumentHelp(
        "Most hands per frame (\(Limits.maxHands.text); MediaPipe's max_num_hands, Vision's maximumHandCount). On video the palm detector runs only while fewer are tracked.",
        valueName: "n"))
    var maxHands: Int = defaults.maximumHands

    @Flag(help: "The input is mirrored (a selfie view): \"handedness\" is then MediaPipe's label as is. Without it, the person's own hand in the image as given (the opposite of MediaPipe's label).")
    var mirrored = false

    @Option(name: .long, help: ArgumentHelp(
        "Where hands are looked for: palms (MediaPipe's pipeline exactly: the palm detector), body (regions from the body model's wrists and elbows: PoseNet, as posekit pose finds people) or palms+body (palms first, then the wrists they missed: finds the small hands of people photographed whole). See docs/hands.md.",
        valueName: "palms|body|palms+body"))
    var handSources: HandSources = defaults.sources

    @Flag(help: "Keep the hands the false-hand rule leaves out (a hand on a person's clothing, a hand of the wrong size for the arm holding it: docs/hands.md), as MediaPipe keeps every hand.")
    var keepFalseHands = false

    func validate() throws {
        try Limits.maxHands.check(maxHands, "--max-hands")
    }

    /// The detector these options ask for, on `threads` cores (nil: every core) in `precision`
    /// (refused in one line, before any work, when this CPU lacks it); a missing model
    /// names the bundle and `posekit weights install`, which installs it.
    /// `loadsBodyModel` false: the body's poses come with each frame (`pose --hands`).
    func makeDetector(threads: Int?, precision: Precision, loadsBodyModel: Bool = true) throws -> HandDetector {
        try precision.require()
        var configuration = HandDetector.Configuration(model: handModel, maximumHands: maxHands, mirrored: mirrored, threads: threads,
                                                       sources: handSources, precision: precision)
        configuration.falseHands.isEnabled = !keepFalseHands
        return try HandDetector(configuration: configuration, loadsBodyModel: loadsBodyModel)
    }
}

extension HandDetector.Model: ExpressibleByArgument {}
extension HandSources: ExpressibleByArgument {}
