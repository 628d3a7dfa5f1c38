import ArgumentParser
import PoseKit

/// How people keep their identities across video frames; shared by `pose` and `actions`, whose
/// defaults are the library's (``PoseTracker/Configuration``), so both follow the same people.
struct TrackingOptions: ParsableArguments {
    private static let defaults = PoseTracker.Configuration()

    @Option(name: .long, help: ArgumentHelp("Most people tracked at once; the longest unseen is forgotten first (\(Limits.maxTracks.text)).", valueName: "n", visibility: .hidden))
    var maxTracks: Int = defaults.maximumTracks

    @Option(name: .long, help: ArgumentHelp("Seconds a person may go unseen and keep their id (\(Limits.maxTrackAge.text)).", valueName: "s", visibility: .hidden))
    var maxTrackAge: Double = defaults.maximumAge

    @Option(name: .long, help: ArgumentHelp("Smallest head-and-torso similarity that links a pose to a tracked person (\(Limits.probability.text)).", valueName: "x", visibility: .hidden))
    var minTrackSimilarity: Double = defaults.minimumSimilarity

    @Option(name: .long, help: ArgumentHelp("Poses scoring at least this may start a new person; weaker ones only continue one (\(Limits.probability.text)).", valueName: "x", visibility: .hidden))
    var trackScore: Double = defaults.confidentPoseScore

    @Option(name: .long, help: ArgumentHelp("Drop a pose with this many keypoints on a better pose's same keypoints: a weaker duplicate of that person (\(Limits.duplicateKeypoints.text); 0 keeps duplicates, as TF.js).", valueName: "n", visibility: .hidden))
    var duplicateKeypoints: Int = defaults.duplicateKeypoints ?? 0

    func validate() throws {
        try Limits.maxTracks.check(maxTracks, "--max-tracks")
        try Limits.maxTrackAge.check(maxTrackAge, "--max-track-age")
        try Limits.probability.check(minTrackSimilarity, "--min-track-similarity")
        try Limits.probability.check(trackScore, "--track-score")
        try Limits.duplicateKeypoints.check(duplicateKeypoints, "--duplicate-keypoints")
        do { _ = try PoseTracker(configuration: configuration) } catch let error as PoseDataError {
            throw ValidationError("\(error)")
        }
    }

    /// The tracker's configuration with these options applied.
    var configuration: PoseTracker.Configuration {
        var c = PoseTracker.Configuration()
        c.maximumTracks = maxTracks
        c.maximumAge = maxTrackAge
        c.minimumSimilarity = minTrackSimilarity
        c.confidentPoseScore = trackScore
        c.minimumPoseScore = min(c.minimumPoseScore, trackScore)
        c.duplicateKeypoints = duplicateKeypoints > 0 ? duplicateKeypoints : nil
        return c
    }
}
