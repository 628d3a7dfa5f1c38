/// Every model PoseKit knows, in one place: its name, family, the weight bundles it runs on, where
/// each bundle comes from (the published file, its SHA-256, its format), its licence and its
/// defaults.
///
/// Everything that names a model reads it here: ``ModelLocator`` (which names exist),
/// `posekit weights install` (it installs every bundle listed), `posekit info`, `run`, `bench`,
/// the shell completion of `--model`, the importers (a published file's licence, by SHA-256) and
/// the one-call detectors (the bundles they load). A model is added by adding it here.
///
///     ModelCatalogue.model(named: "blazepose")?.bundles.map(\.name)   // ["pose_detection", "pose_landmark_full"]
///     ModelCatalogue.suggestion(for: "blazpose", among: ModelCatalogue.names(of: [.poseNet, .blazePose]))  // "blazepose"
public enum ModelCatalogue {
    /// What runs a model.
    public enum Family: String, Sendable, CaseIterable {
        /// Google's PoseNet (MobileNetV1): `PoseDetector`, `posekit pose --model NAME`.
        case poseNet = "posenet"
        /// MediaPipe's BlazePose (detector and landmark graphs): `BlazePoseDetector`, `--model blazepose`.
        case blazePose = "blazepose"
        /// MediaPipe's hands (palm detector and landmark graphs): `HandDetector`, `posekit hands --hand-model`.
        case hands
        /// PoseKit's action classifier: `ActionRecognizer`, `posekit actions --weights`.
        case actionNet = "actionnet"
    }

    /// Where a bundle's weights come from.
    public struct Source: Sendable, Hashable {
        /// The folder of the published file in the weights source (`../shared/weights`, `posekit
        /// weights install --from`); nil for weights PoseKit trains and commits (`Weights/`).
        public let directory: String?
        /// The file's name.
        public let fileName: String
        /// SHA-256 of the file, lowercase hex: the published file `weights install` imports (it
        /// refuses another), or the committed bundle.
        public let sha256: String
        /// Its format: `coreml`, `graphdef`, `tflite` (imported), `pkw` (a bundle as is).
        public let format: String
    }

    /// One weight bundle (`NAME.pkw`, found by ``ModelLocator``) and its provenance.
    public struct Bundle: Sendable, Equatable {
        /// The short name: the file is `NAME.pkw`.
        public let name: String
        /// What the bundle is made from.
        public let source: Source
        /// The licence of the weights (SPDX) and the attribution to keep when shipping them; the
        /// importers record it in the bundle's manifest.
        public let license: WeightManifest.License
    }

    /// What a model runs with unless told otherwise.
    public struct Defaults: Sendable, Hashable {
        /// Side of the square network input in pixels (PoseNet's is a setting; MediaPipe's graphs
        /// have fixed inputs, the first bundle's here).
        public let inputSize: Int
        /// Output stride of PoseNet's heads; nil for the other families.
        public let outputStride: Int?
    }

    /// A model a command or detector can be asked for by name.
    public struct Model: Sendable, Equatable {
        /// The name `--model` (PoseNet, BlazePose), `--weights` (ActionNet) or, without its
        /// `hands-` prefix, `--hand-model` takes.
        public let name: String
        /// What runs it.
        public let family: Family
        /// One line: what it is.
        public let summary: String
        /// The bundles it loads, in order (a MediaPipe pipeline's detector first).
        public let bundles: [Bundle]
        /// Its defaults.
        public let defaults: Defaults
    }

    // MARK: The catalogue

    /// The licence the PoseNet importers record for a Core ML PoseNet file (Apple's conversion).
    public static let poseNetCoreMLLicense = poseNetLicense(convertedBy: "Converted to Core ML by Apple (coremltools) from the TF.js PoseNet checkpoint.")
    /// The licence the PoseNet importers record for a TensorFlow GraphDef PoseNet file.
    public static let poseNetGraphDefLicense = poseNetLicense(convertedBy: "Frozen TensorFlow graph made by the rwightman/posenet-python converter (Apache-2.0, Copyright 2018 Ross Wightman) from the TF.js PoseNet checkpoint.")

    /// Google's TF.js PoseNet weights' licence, from which every known PoseNet MobileNetV1 file
    /// derives; `convertedBy` says how the file was made from them.
    static func poseNetLicense(convertedBy: String) -> WeightManifest.License {
        .init(spdx: "Apache-2.0",
              attribution: "PoseNet MobileNetV1 weights from TensorFlow.js PoseNet (github.com/tensorflow/tfjs-models/tree/master/posenet), Copyright 2018 Google LLC, licensed under the Apache License, Version 2.0. \(convertedBy) Repackaged by PoseKit: values unchanged except that separate batchnorm layers are folded into the convolutions.")
    }

    /// One of MediaPipe 0.10.14's models (`mediapipe-0.10.14/NAME.tflite`, Apache-2.0).
    static func mediaPipe(_ name: String, sha256: String) -> Bundle {
        Bundle(name: name, source: Source(directory: "mediapipe-0.10.14", fileName: "\(name).tflite", sha256: sha256, format: "tflite"),
               license: .init(spdx: "Apache-2.0", attribution: "MediaPipe \(name) model from the mediapipe 0.10.14 Python wheel (github.com/google-ai-edge/mediapipe), "
                   + "Copyright Google LLC, licensed under the Apache License, Version 2.0. Repackaged by PoseKit: fp16 DEQUANTIZE "
                   + "and sparse DENSIFY folded (values unchanged), layouts converted for PoseKit's kernels."))
    }

    static let mobilenet075 = Bundle(
        name: "mobilenet075",
        source: Source(directory: "posenet-mobilenet075-s16-coreml", fileName: "PoseNetMobileNet075S16FP16.mlmodel",
                       sha256: "593cd60c316977f4bc8ec0ef51e6b5b7a11279d1ecf13f790f7d33a219e30383", format: "coreml"),
        license: poseNetCoreMLLicense)
    static let mobilenet050 = Bundle(
        name: "mobilenet050",
        source: Source(directory: "posenet-mobilenet050-tf", fileName: "model-mobilenet_v1_050.pb",
                       sha256: "968306c220ad72c680955438a6e12e693e82a6ccd4919b6ba67ee8bbe21760d3", format: "graphdef"),
        license: poseNetGraphDefLicense)
    static let poseDetection = mediaPipe("pose_detection", sha256: "9ba9dd3d42efaaba86b4ff0122b06f29c4122e756b329d89dca1e297fd8f866c")
    static let poseLandmarkFull = mediaPipe("pose_landmark_full", sha256: "e9a5c5cb17f736fafd4c2ec1da3b3d331d6edbe8a0d32395855aeb2cdfd64b9f")
    static let palmDetectionFull = mediaPipe("palm_detection_full", sha256: "1b14e9422c6ad006cde6581a46c8b90dd573c07ab7f3934b5589e7cea3f89a54")
    static let palmDetectionLite = mediaPipe("palm_detection_lite", sha256: "e9a4aaddf90dda56a87235303cf00e4c2d3fb28725f68fd88772997dac905c18")
    static let handLandmarkFull = mediaPipe("hand_landmark_full", sha256: "11c272b891e1a99ab034208e23937a8008388cf11ed2a9d776ed3d01d0ba00e3")
    static let handLandmarkLite = mediaPipe("hand_landmark_lite", sha256: "048edd3645c9bf7397d19a9f6e3a42957d6e414c9bea6598030a2e9b624156e6")
    static let actionNet = Bundle(
        name: "actionnet",
        source: Source(directory: nil, fileName: "actionnet.pkw",
                       sha256: "ff39cc07af880a6e0ca87f5a23267e6cac8ed96d974cd1fcb577c6b7fd117e5d", format: "pkw"),
        license: .init(spdx: "Apache-2.0", attribution: "PoseKit action classifier, trained by `posekit train-actions` on synthetic motion and the labelled clips named in the source notes."))

    /// Every model, each family's default first.
    public static let models: [Model] = [
        Model(name: "mobilenet075", family: .poseNet,
              summary: "PoseNet, MobileNetV1 width 0.75: 17 COCO keypoints per person, several people (the default)",
              bundles: [mobilenet075], defaults: Defaults(inputSize: 513, outputStride: 16)),
        Model(name: "mobilenet050", family: .poseNet,
              summary: "PoseNet, MobileNetV1 width 0.50: about half the work of 0.75, less accurate",
              bundles: [mobilenet050], defaults: Defaults(inputSize: 513, outputStride: 16)),
        Model(name: "blazepose", family: .blazePose,
              summary: "MediaPipe BlazePose (full): 33 landmarks with depth, visibility and world points in metres",
              bundles: [poseDetection, poseLandmarkFull], defaults: Defaults(inputSize: 224, outputStride: nil)),
        Model(name: "hands-full", family: .hands,
              summary: "MediaPipe hands (full): palm detector and 21 hand landmarks with handedness (the default)",
              bundles: [palmDetectionFull, handLandmarkFull], defaults: Defaults(inputSize: 192, outputStride: nil)),
        Model(name: "hands-lite", family: .hands,
              summary: "MediaPipe hands (lite): faster, less accurate",
              bundles: [palmDetectionLite, handLandmarkLite], defaults: Defaults(inputSize: 192, outputStride: nil)),
        Model(name: "actionnet", family: .actionNet,
              summary: "PoseKit's action classifier: 2 s windows of one person into jumping_jacks, lunges, burpees, squats, other",
              bundles: [actionNet], defaults: Defaults(inputSize: 60, outputStride: nil)),
    ]

    // MARK: Lookups

    /// The model named `name`, if it is one.
    public static func model(named name: String) -> Model? {
        models.first { $0.name == name }
    }

    /// Every bundle, once each, in catalogue order.
    public static var bundles: [Bundle] {
        var seen: Set<String> = []
        return models.flatMap(\.bundles).filter { seen.insert($0.name).inserted }
    }

    /// The bundle named `name` (`pose_detection`), if it is one.
    public static func bundle(named name: String) -> Bundle? {
        bundles.first { $0.name == name }
    }

    /// The bundle made from the file with this SHA-256 (lowercase hex), if any.
    public static func bundle(sha256: String) -> Bundle? {
        bundles.first { $0.source.sha256 == sha256 }
    }

    /// The names of the models of `families`, in catalogue order.
    public static func names(of families: Set<Family>) -> [String] {
        models.filter { families.contains($0.family) }.map(\.name)
    }

    /// Every name ``ModelLocator`` finds a bundle by: the bundles' names.
    public static var bundleNames: [String] { bundles.map(\.name) }

    /// The name in `names` nearest to a misspelt `name`, when one is near enough to be what was
    /// meant (case ignored). A name that `name` begins, up to a few edits (at most a third of its
    /// length), comes first, the fewest such edits first (`palm_detecton` is `palm_detection_full`,
    /// never `pose_detection`, which is fewer edits from it as a whole); else the name fewest
    /// single-character edits from it as a whole, at most a third of its length (and at least 2).
    /// Nil when none is.
    public static func suggestion(for name: String, among names: [String]) -> String? {
        let typed = Array(name.lowercased())
        guard !typed.isEmpty else { return nil }
        var best: (name: String, distance: Int)?
        var bestStart: (name: String, distance: Int, whole: Int)?
        for candidate in names {
            // To the whole name, and to the nearest of its starts.
            let distances = editDistances(typed, Array(candidate.lowercased()))
            let distance = distances.last!, start = distances.min()!
            if best == nil || distance < best!.distance { best = (candidate, distance) }
            if start <= typed.count / 3,
               bestStart == nil || (start, distance) < (bestStart!.distance, bestStart!.whole) { bestStart = (candidate, start, distance) }
        }
        if let bestStart { return bestStart.name }
        guard let best else { return nil }
        if best.distance <= max(2, typed.count / 3) { return best.name }
        return nil
    }

    /// The Levenshtein distances (insertions, deletions, substitutions) from `a` to each prefix of
    /// `b`, the empty one first and `b` itself last (the last row of the table).
    private static func editDistances(_ a: [Character], _ b: [Character]) -> [Int] {
        var previous = Array(0...b.count), current = [Int](repeating: 0, count: b.count + 1)
        for i in stride(from: 1, through: a.count, by: 1) {
            current[0] = i
            for j in stride(from: 1, through: b.count, by: 1) {
                current[j] = min(previous[j] + 1, current[j - 1] + 1, previous[j - 1] + (a[i - 1] == b[j - 1] ? 0 : 1))
            }
            swap(&previous, &current)
        }
        return previous
    }

    /// One clause for a name that is not a model: the names, and the nearest when one is near:
    /// `no model 'blazpose' (did you mean 'blazepose'? models: mobilenet075, mobilenet050, blazepose)`.
    public static func unknownName(_ name: String, among names: [String]) -> String {
        let nearest = suggestion(for: name, among: names).map { "did you mean '\($0)'? " } ?? ""
        return "no model '\(name)' (\(nearest)models: \(names.joined(separator: ", ")))"
    }
}
