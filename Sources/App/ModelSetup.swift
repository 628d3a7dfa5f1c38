import Foundation
import PoseKit

extension ModelOptions {
    /// The input size for finding poses: the library's default (``PoseDetector/Configuration``).
    static let defaultInputSize = PoseDetector.Configuration.default.inputSize

    /// The detector these options and `decode` ask for, built by the library's one-call API;
    /// what an option leaves unset comes from `defaults`.
    func makeDetector(_ decode: DecodeOptions, defaults: PoseDetector.Configuration = .default) throws -> PoseDetector {
        try requirePrecision()
        let url = try ModelLocator.resolve(model)
        let bundle = try CLIError.reading(url.path) { try WeightBundle(contentsOf: url) }
        let configuration = PoseDetector.Configuration(
            inputSize: inputSize ?? defaults.inputSize, outputStride: outputStride, geometry: geometry,
            threads: threads ?? defaults.threads, decoding: decode.decoding, precision: precision)
        // Every problem of the bundle (shapes, values, strides) names it.
        return try CLIError.reading(url.path) { try PoseDetector(bundle: bundle, configuration: configuration) }
    }

    /// `--precision` as it runs here; an explicit bf16 or int8 this CPU lacks is one line and exit 1.
    func requirePrecision() throws {
        if let problem = precision.unavailability { throw CLIError("--precision \(precision.rawValue): \(problem)") }
    }

    var geometry: InputPlacement.Fit { resize == .letterbox ? .letterbox : .stretch }

    /// The threads the network runs on: `--threads`, or every core (the library's rule).
    var resolvedThreads: Int { PoseDetector.Configuration(threads: threads).resolvedThreads }
}

extension DecodeOptions {
    /// The library's default decoding with these options applied.
    var decoding: PoseDecoding {
        var decoding = PoseDetector.Configuration.default.decoding
        decoding.mode = mode == .single ? .single : .multi
        decoding.parameters.maxPoses = maxPoses
        decoding.parameters.partScoreThreshold = scoreThreshold
        decoding.parameters.nmsRadius = nmsRadius
        decoding.parameters.refineSteps = refineSteps
        decoding.parameters.minPoseScore = minPoseScore
        decoding.flipAveraging = flip
        return decoding
    }
}
