import ArgumentParser
import Foundation
import PoseKit

/// The library's detector defaults, which the options below take as theirs.
private enum Defaults {
    static let configuration = PoseDetector.Configuration.default
    static let decoding = configuration.decoding
}

/// Which network to run and how to feed it; shared by every command that runs PoseNet.
///
/// The defaults are the library's (``PoseDetector/Configuration``), so `posekit` and a program
/// using `PoseDetector(model:)` find the same poses.
struct ModelOptions: ParsableArguments {
    @Option(name: .long, help: ArgumentHelp(
        "Model: a PoseNet name (\(ModelCatalogue.names(of: [.poseNet]).joined(separator: ", "))) or path to a PoseNet .pkw weight bundle, or \(ModelOptions.blazePose) (MediaPipe's BlazePose: 33 landmarks with depth and world points in metres, one person; posekit pose).",
        valueName: "name|path"), completion: ModelOptions.completion(for: ModelOptions.modelNames))
    var model: String = PoseModel.default.description

    @Option(name: .long, help: ArgumentHelp(
        "Side of the square network input, in pixels (default: \(Defaults.configuration.inputSize) for pose, actions and eval alike, the most accurate and 70+ frames/s on 2 cores). Sizes 16k+1 (257, 353, 513) align the output grid with the image. Range \(Limits.inputSize.text).",
        valueName: "n"))
    var inputSize: Int?

    @Option(name: .long, help: ArgumentHelp("Output stride of the heads: \(Limits.outputStridesText) (smaller is finer and slower).", valueName: "8|16", visibility: .hidden))
    var outputStride: Int = Defaults.configuration.outputStride

    @Option(name: .long, help: ArgumentHelp(
        "How frames are fitted to the square input: letterbox (keep aspect ratio, pad bottom/right) or stretch (scale each axis; Apple's scaleFill).",
        valueName: "letterbox|stretch", visibility: .hidden))
    var resize: ResizeMode = Defaults.configuration.geometry == .letterbox ? .letterbox : .stretch

    @Option(name: .long, help: ArgumentHelp("Worker threads for the network (default: all cores; \(Limits.threads.text)).", valueName: "n"))
    var threads: Int?

    @Option(name: .long, help: ArgumentHelp(
        "Arithmetic of the network's 1x1 convolutions: fp32 (default), bf16 (needs AVX512-BF16), int8 (needs AVX2 or NEON; VNNI or sdot where present) or auto (fp32 on every CPU measured so far: no reduced precision is within 0.005 AP of fp32 and faster). An explicit bf16 or int8 on a CPU without it is an error. Speed and accuracy of each: docs/speed.md.",
        valueName: "fp32|bf16|int8|auto"))
    var precision: Precision = Defaults.configuration.precision

    @Option(name: .long, help: ArgumentHelp(
        "With --model blazepose: which MediaPipe the landmarks follow: graph (MediaPipe's pose_landmark_cpu graph and its Tasks API; default) or python-solution (its legacy Python API mp.solutions.pose, which refines landmarks in a 9x9 heatmap window where the graph has 7: docs/blazepose.md).",
        valueName: "graph|python-solution"))
    var blazeposeVariant: BlazePoseVariant = .graph

    @Flag(name: .long, help: ArgumentHelp(
        "With --model blazepose --max-poses N (N > 1): only BlazePose's own landmarks. Without it, a person PoseNet finds and BlazePose reads in no region (half hidden, small, faint) is PoseNet's pose (its 17 COCO points, the other 16 with score 0, no world points, \"landmarks_from\": \"posenet\"), in a photo a person both models read is at the mean of their points (docs/blazepose.md)."))
    var blazeposeOnly = false

    func validate() throws {
        try Self.checkName(model, "--model", among: Self.modelNames)
        if blazeposeVariant != .graph && !isBlazePose { throw ValidationError("--blazepose-variant is for --model \(Self.blazePose)") }
        if blazeposeOnly && !isBlazePose { throw ValidationError("--blazepose-only is for --model \(Self.blazePose) --max-poses N") }
        if let inputSize { try Limits.inputSize.check(inputSize, "--input-size") }
        try Limits.checkOutputStride(outputStride)
        if let threads { try Limits.threads.check(threads, "--threads") }
    }
}

extension ModelOptions {
    /// The names `--model` takes (``ModelCatalogue``'s PoseNet and BlazePose models).
    static let modelNames = ModelCatalogue.names(of: [.poseNet, .blazePose])

    /// A usage error for a `value` of `option` that is none of `names`, no file and no bundle
    /// found by that short name (a misspelling): the names, and the nearest when one is near.
    /// A `.pkw` name or a path is left to the loader (its error says where it looked).
    static func checkName(_ value: String, _ option: String, among names: [String]) throws {
        guard !names.contains(value), !value.contains("/"), !value.hasSuffix(".\(ModelLocator.bundleExtension)"),
              !RegularFile.exists(atPath: value), (try? ModelLocator.resolve(value)) == nil else { return }
        throw ValidationError("\(option) \(value): \(ModelCatalogue.unknownName(value, among: names)), or give the path of a .pkw bundle")
    }

    /// Shell completion of a model option: the names that start with what is typed, and the
    /// `.pkw` bundles in the directory typed so far.
    static func completion(for names: [String]) -> CompletionKind {
        .custom { _, _, prefix in
            let directory = prefix.contains("/") ? String(prefix[...prefix.lastIndex(of: "/")!]) : ""
            let files = ((try? FileManager.default.contentsOfDirectory(atPath: directory.isEmpty ? "." : directory)) ?? [])
                .filter { $0.hasSuffix(".\(ModelLocator.bundleExtension)") }.sorted().map { directory + $0 }
            return (names + files).filter { $0.hasPrefix(prefix) }
        }
    }
}

/// How frames are fitted to the network's square input.
enum ResizeMode: String, ExpressibleByArgument, CaseIterable {
    case letterbox, stretch
}

/// How head tensors become poses; shared by `pose`, `actions` and `eval`.
struct DecodeOptions: ParsableArguments {
    @Flag(help: "Decode one person per frame (argmax + offset), or several (PersonLab-style; default).")
    var mode: DecodeMode = Defaults.decoding.mode == .single ? .single : .multi

    @Option(name: .long, help: ArgumentHelp("Most poses to report per frame (\(Limits.maxPoses.text); default: the model's, PoseNet \(Defaults.decoding.parameters.maxPoses), BlazePose 1). With --model blazepose: the people followed, one region each (1 is MediaPipe's single-person pipeline; more, as its PoseLandmarker).", valueName: "n"))
    var maxPoses: Int?

    @Option(name: .long, help: ArgumentHelp("Part score a heatmap peak needs to seed a pose (\(Limits.probability.text); Apple: jointConfidenceThreshold).", valueName: "x", visibility: .hidden))
    var scoreThreshold: Double = Defaults.decoding.parameters.partScoreThreshold

    @Option(name: .long, help: ArgumentHelp("Two poses whose same part lies within this many pixels of network input are the same person (\(Limits.nmsRadius.text); Apple: matchingJointDistance).", valueName: "px", visibility: .hidden))
    var nmsRadius: Double = Defaults.decoding.parameters.nmsRadius

    @Option(name: .long, help: ArgumentHelp("Drop poses scoring below this (\(Limits.probability.text); Apple: poseConfidenceThreshold).", valueName: "x", visibility: .hidden))
    var minPoseScore: Double = Defaults.decoding.parameters.minPoseScore

    @Option(name: .long, help: ArgumentHelp("Displacement refinement steps per skeleton edge (\(Limits.refineSteps.text); Apple: adjacentJointOffsetRefinementSteps).", valueName: "n", visibility: .hidden))
    var refineSteps: Int = Defaults.decoding.parameters.refineSteps

    @Flag(help: ArgumentHelp("Also run the mirror image and average the two (more accurate, twice the network time).", visibility: .hidden))
    var flip = Defaults.decoding.flipAveraging

    func validate() throws {
        if let maxPoses { try Limits.maxPoses.check(maxPoses, "--max-poses") }
        try Limits.probability.check(scoreThreshold, "--score-threshold")
        try Limits.nmsRadius.check(nmsRadius, "--nms-radius")
        try Limits.probability.check(minPoseScore, "--min-pose-score")
        try Limits.refineSteps.check(refineSteps, "--refine-steps")
    }
}

enum DecodeMode: String, EnumerableFlag {
    case single, multi
}

extension BlazePoseVariant: ExpressibleByArgument {}
