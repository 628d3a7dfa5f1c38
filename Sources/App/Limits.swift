import ArgumentParser
import PoseKit

/// The accepted range of one numeric option: `validate()` checks it before any output (exit 2)
/// and `--help` shows it, both from this one value.
struct OptionLimit<Value: Comparable & Sendable>: Sendable {
    let range: ClosedRange<Value>

    /// `33...2049`, as shown in help and errors.
    var text: String { "\(range.lowerBound)...\(range.upperBound)" }

    /// Throws a usage error unless `value` is in range; `option` is the flag, e.g. `--threads`.
    func check(_ value: Value, _ option: String) throws {
        guard range.contains(value) else { throw ValidationError("\(option) must be within \(text), got \(value)") }
    }

    /// Checks every value of a list option.
    func check(_ values: [Value], _ option: String) throws {
        for value in values { try check(value, option) }
    }
}

extension OptionLimit where Value == Double {
    /// Also refuses NaN (which no range comparison catches).
    func check(_ value: Double, _ option: String) throws {
        guard value.isFinite, range.contains(value) else { throw ValidationError("\(option) must be within \(text), got \(value)") }
    }
}

/// Every numeric option's accepted range, in one table; each command's `validate()` checks
/// against it and its `--help` text quotes it.
enum Limits {
    /// Network input side in pixels (`--input-size`, `bench --sizes`).
    static let inputSize = OptionLimit(range: 33...2049)
    /// Output strides the PoseNet heads support (`--output-stride`). Not 32: every published
    /// PoseNet bundle's backbone has a total stride of 16 (`posekit info`), so 32 could only fail.
    static let outputStrides = [8, 16]
    /// Worker threads (`--threads`).
    static let threads = OptionLimit(range: 1...256)
    /// Poses per frame (`--max-poses`).
    static let maxPoses = OptionLimit(range: 1...PoseJSONLinesDecoder.maximumPosesPerFrame)
    /// `--max-hands`: each hand costs a landmark pass per frame.
    static let maxHands = OptionLimit(range: 1...HandDetector.maximumHandsLimit)
    /// Scores and probabilities (`--score-threshold`, `--min-pose-score`, `--confidence`).
    static let probability = OptionLimit(range: 0.0...1.0)
    /// Network-input pixels per image pixel at most (`--max-upscale`): 1 never enlarges.
    static let maxUpscale = OptionLimit(range: 1.0...100.0)
    /// Same-person radius in network pixels (`--nms-radius`).
    static let nmsRadius = OptionLimit(range: 0.0...10_000.0)
    /// Shared keypoints that make a pose a duplicate (`--duplicate-keypoints`; 0 keeps duplicates).
    static let duplicateKeypoints = OptionLimit(range: 0...17)
    /// Tracks alive at once (`--max-tracks`).
    static let maxTracks = OptionLimit(range: 1...1000)
    /// Seconds a track lives unmatched (`--max-track-age`); a track must outlive its own frame.
    static let maxTrackAge = OptionLimit(range: 0.001...3600.0)
    /// Displacement refinement steps (`--refine-steps`).
    static let refineSteps = OptionLimit(range: 0...MultiPoseParameters.maximumRefineSteps)
    /// Model frames between action windows (`actions --stride`): at most one window length
    /// (60 frames, 2 s at 30 frames/s).
    static let actionStride = OptionLimit(range: 1...60)
    /// Assumed frame rate (`actions --fps`).
    static let framesPerSecond = OptionLimit(range: 0.1...1000.0)
    /// Area factor inside OKS (`eval --oks-area-scale`).
    static let oksAreaScale = OptionLimit(range: 0.01...100.0)
    /// Frames per pipeline measurement (`bench pipeline --frames`).
    static let benchFrames = OptionLimit(range: 10...100_000)
    /// Interleaved passes per schedule (`bench pipeline --rounds`).
    static let benchRounds = OptionLimit(range: 1...100)
    /// People per synthetic frame (`bench decode --people`): up to a grid full of them.
    static let benchPeople = OptionLimit(range: 1...1000)
    /// Output grid side of the synthetic frames (`bench decode --grid`): 257 cells is a 2049 input at stride 8.
    static let benchDecodeGrid = OptionLimit(range: 9...257)
    /// Timed runs per measurement (`bench model/kernels --runs`).
    static let benchRuns = OptionLimit(range: 1...10_000)
    /// Training epochs and synthetic sequences per exercise (`train-actions`).
    static let epochs = OptionLimit(range: 1...1000)
    static let sequences = OptionLimit(range: 1...100_000)
    /// Machines or processes sharing a batch (`--shard I/N`).
    static let shardCount = OptionLimit(range: 1...100_000)

    /// `--inputs-from`: most entries, bytes in one line (PATH_MAX) and bytes of paths in all.
    static let inputListEntries = 1_000_000
    static let inputListLineBytes = 4096
    static let inputListBytes = 256 << 20

    static var outputStridesText: String { outputStrides.map(String.init).joined(separator: ", ") }

    static func checkOutputStride(_ value: Int, _ option: String = "--output-stride") throws {
        guard outputStrides.contains(value) else { throw ValidationError("\(option) must be one of \(outputStridesText), got \(value)") }
    }
}
