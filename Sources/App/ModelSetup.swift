import Foundation
import PoseKit

extension ModelOptions {
    /// The input size for finding poses: the library's default (``PoseDetector/Configuration``).
    static let defaultInputSize = PoseDetector.Configuration.default.inputSize

    /// The detector these options and `decode` ask for, built by the library's one-call API;
    /// what an option leaves unset comes from `defaults`.
    func makeDetector(_ decode: DecodeOptions, defaults: PoseDetector.Configuration = .default) throws -> PoseDetector {
        if isBlazePose { throw CLIError("--model \(Self.blazePose) runs in posekit pose; this command runs PoseNet (\(ModelCatalogue.names(of: [.poseNet]).joined(separator: ", ")) or a .pkw bundle)") }
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
        try precision.require()
    }

    /// `--model`'s name for BlazePose (``ModelCatalogue``).
    static let blazePose = BlazePoseDetector.catalogueName

    /// Whether `--model` asks for BlazePose rather than a PoseNet bundle.
    var isBlazePose: Bool { ModelCatalogue.model(named: model)?.family == .blazePose }

    /// BlazePose (`pose_detection` and `pose_landmark_full`, found as every bundle is) on `--threads`
    /// and `--precision`: one person (the model's default, MediaPipe's legacy pipeline), or one
    /// region per person up to `--max-poses` when it is given, the people BlazePose's detector misses
    /// found by PoseNet (`BlazePoseDetector.everyone`), those BlazePose cannot read reported from PoseNet's
    /// pose and the readings of PoseNet's people blended with its points unless `--blazepose-only`; the segmentation branch computed only with `mask`.
    func makeBlazePose(_ decode: DecodeOptions, mask: Bool = false) throws -> BlazePoseDetector {
        try requirePrecision()
        var configuration = BlazePoseDetector.Configuration(
            threads: threads, maximumPoses: decode.maxPoses ?? BlazePoseDetector.Configuration.default.maximumPoses,
            segmentation: mask, precision: precision)
        configuration.variant = blazeposeVariant
        // With one person PoseNet never runs, so nothing could be reported from it: the flag would do nothing.
        if blazeposeOnly && configuration.maximumPoses == 1 {
            throw CLIError("--blazepose-only is for --max-poses N (N > 1): with one person BlazePose's own detector finds them and nobody is reported from PoseNet's pose, so there is nothing to turn off")
        }
        guard configuration.maximumPoses > 1 else { return try BlazePoseDetector(configuration: configuration) }
        // The study of docs/blazepose.md ("Everyone in the frame", scripts/blazepose-everyone.py) sweeps the
        // region's reach and the rules of choosing a reading through the environment: undocumented knobs of
        // the command line, never read by the library.
        let environment = ProcessInfo.processInfo.environment
        if let reach = environment["POSEKIT_BLAZEPOSE_PERSON_REACH"].flatMap(Float.init), reach > 0, reach < 10 {
            configuration.personRegion.reach = reach
        }
        if let close = environment["POSEKIT_BLAZEPOSE_PERSON_CLOSE"].flatMap(Float.init), close >= 0, close <= 1 {
            configuration.personRegion.closeEnough = close
        }
        if let reread = environment["POSEKIT_BLAZEPOSE_PERSON_REREAD"] { configuration.personRegion.rereadsDetected = reread != "0" }
        if let scoring = environment["POSEKIT_BLAZEPOSE_PERSON_SCORE"].flatMap(BlazePosePersonScore.init(rawValue:)) {
            configuration.personRegion.scoring = scoring
        }
        // `--blazepose-only`: nothing of PoseNet's in the output (no person from its pose, no point blended in).
        if blazeposeOnly {
            configuration.personRegion.reportsUnreadPeople = false
            configuration.personRegion.blend = 0
        }
        return try BlazePoseDetector.everyone(configuration: configuration)
    }

    /// The PoseNet options given with `--model blazepose`, which it has no use for (compared with
    /// their defaults: an option given at its default value is not noticed).
    func poseNetOnlyOptions(_ decode: DecodeOptions, _ accuracy: AccuracyOptions) -> [String] {
        let defaults = PoseDetector.Configuration.default, decoding = defaults.decoding
        var given: [String] = []
        if inputSize != nil { given.append("--input-size") }
        if outputStride != defaults.outputStride { given.append("--output-stride") }
        if geometry != defaults.geometry { given.append("--resize") }
        if decode.mode != (decoding.mode == .single ? .single : .multi) { given.append("--\(decode.mode.rawValue)") }
        if decode.scoreThreshold != decoding.parameters.partScoreThreshold { given.append("--score-threshold") }
        if decode.nmsRadius != decoding.parameters.nmsRadius { given.append("--nms-radius") }
        if decode.minPoseScore != decoding.parameters.minPoseScore { given.append("--min-pose-score") }
        if decode.refineSteps != decoding.parameters.refineSteps { given.append("--refine-steps") }
        if decode.flip != decoding.flipAveraging { given.append("--flip") }
        if accuracy.accurate { given.append("--accurate") }
        if accuracy.inputSizes != nil { given.append("--input-sizes") }
        if accuracy.maxUpscale != nil { given.append("--max-upscale") }
        return given
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
        if let maxPoses { decoding.parameters.maxPoses = maxPoses }
        decoding.parameters.partScoreThreshold = scoreThreshold
        decoding.parameters.nmsRadius = nmsRadius
        decoding.parameters.refineSteps = refineSteps
        decoding.parameters.minPoseScore = minPoseScore
        decoding.flipAveraging = flip
        return decoding
    }
}
