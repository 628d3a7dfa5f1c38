import Foundation
import ModelGraph
import PoseCore
import Tensor

/// An action classifier trained in Apple's Create ML, run from its `.mlmodel` file.
///
/// Create ML exports action classifiers as Core ML `neuralNetworkClassifier` models: input
/// `poses`, a float multi-array `[T, 3, 18]` (T frames, oldest first; x, y, confidence; Vision's
/// 18 joints, ``VisionJoint``), outputs the class probabilities and the top label. This type
/// reads such a file (Core ML's one reader, `CoreMLFormat`), maps its layers to one `ModelGraph`
/// graph (``graph``: the Create ML family mapper, `CreateMLGraphMapper`) and runs it in float32 on
/// the graph runner, as every network here runs:
///
///     let model = try CreateMLActionClassifier(contentsOf: URL(fileURLWithPath: "ExerciseClassifier.mlmodel"))
///     let prediction = try model.classify(window)   // window: T·3·18 floats, VisionPoseRow per frame
///     print(prediction.label, prediction.probabilities)
///
/// Reading refuses, with one line naming the file (and the layer): a file that is not a Core ML
/// model, a Core ML model that is not a neural-network classifier, a layer kind or parameter this
/// runtime does not run, and an input that is not `[T, 3, 18]`. The graph is run once on a zero
/// window while loading, so a layer whose shapes do not fit fails then, not on the first window.
///
/// **Thread safety.** Immutable but for a pool of graph runners (each holds one window's
/// activations); ``classify(_:)`` may be called from any number of threads, each call taking a
/// runner of its own.
public final class CreateMLActionClassifier: Sendable {
    /// The model's metadata (`Model.description.metadata`), as Xcode shows it.
    public struct Metadata: Sendable, Equatable {
        public let shortDescription: String
        public let version: String
        public let author: String
        public let license: String
        /// Create ML's own entries (e.g. `Target Frame Rate`), key → value.
        public let userDefined: [String: String]
    }

    /// Model frames between the starts of consecutive windows, as in Apple's sample.
    public static let defaultWindowStride = 10

    /// Class labels in output order, spelled as the model spells them.
    public let labels: [String]
    /// Frames per window: the input's first dimension.
    public let windowLength: Int
    /// Frames per second the windows are sampled at: the metadata's `Target Frame Rate` (a fact
    /// of the model), else PoseKit's one fallback, ``/PoseCore/PoseStream/fallbackFrameRate`` (30, the rate
    /// Apple's exercise sample hard-codes).
    public let frameRate: Double
    /// Whether ``frameRate`` comes from the metadata (false: the default).
    public let frameRateIsFromMetadata: Bool
    public let metadata: Metadata
    /// Number of layers in the network (Core ML's, before mapping).
    public var layerCount: Int { layers.count }
    /// The Core ML specification version the file declares.
    public let specificationVersion: Int
    /// The file the model was read from, as messages name it (its path for ``init(contentsOf:threads:)``).
    public let fileName: String
    /// Cores each convolution may use (1: a window is a small job; run windows in parallel instead).
    public let threads: Int
    /// Multiply-adds of one window's convolutions (nearly all the arithmetic), for speed reports.
    public let multiplyAddsPerWindow: Int
    /// The network as a graph: input the window `[T, 3, 18]` (the model's input feature, named as
    /// it is), output the class probabilities `[labels]` (the classifier's probability layer).
    /// What ``classify(_:)`` runs, and what `posekit run` and `posekit info` read.
    public let graph: Graph
    /// The layers as read, in order (the mapper's input; tests map them again layer by layer).
    let layers: [CoreMLLayer]
    let inputName: String, outputName: String
    /// Runners on ``graph`` (one per concurrent ``classify(_:)``), reused.
    private let runners: GraphRunnerPool

    /// Reads the `.mlmodel` at `url`; its errors and ``fileName`` name it by its path, as
    /// `posekit` does.
    /// - Throws: ``CoreMLModelError`` for a file that is not a runnable action classifier;
    ///   `RegularFileError` (`PATH: No such file or directory`) for a file that cannot be read, or
    ///   is a FIFO or a device (refused, never waited on).
    public convenience init(contentsOf url: URL, threads: Int = 1) throws {
        let data = try RegularFile.contents(atPath: url.path)
        try self.init(bytes: [UInt8](data), fileName: url.path, threads: threads)
    }

    /// Reads a `.mlmodel` from its bytes; `fileName` names it in messages.
    public init(bytes: [UInt8], fileName: String, threads: Int = 1) throws {
        let contents = try CoreMLModelReader(file: fileName).read(bytes)
        self.fileName = fileName
        self.threads = max(1, threads)
        labels = contents.labels
        windowLength = contents.inputShape[0]
        metadata = contents.metadata
        specificationVersion = contents.specificationVersion
        layers = contents.layers
        (inputName, outputName) = (contents.inputName, contents.outputName)
        do {
            graph = try CreateMLGraphMapper.map(contents.layers, input: contents.inputName, inputShape: contents.inputShape,
                                                output: contents.outputName, file: fileName).graph
        } catch let error as CoreMLModelError {
            // Shapes that do not fit a layer: the file's problem, named.
            guard case .layerFailed = error else { throw error }
            throw CoreMLModelError.notAClassifier(file: fileName, detail: "\(error)")
        } catch {
            throw CoreMLModelError.notAClassifier(file: fileName, detail: "\(error)")
        }
        if let entry = contents.metadata.userDefined.first(where: { Self.isFrameRateKey($0.key) }) {
            // A rate the model declares but that is no rate is refused, not replaced by the
            // fallback: windows sampled at another rate than the model's give wrong labels.
            guard let declared = Double(entry.value.trimmingCharacters(in: .whitespaces)), declared.isFinite,
                  declared > 0, declared <= Self.maximumFrameRate else {
                throw CoreMLModelError.unsupportedInput(file: fileName, detail: "metadata '\(PrintableText.make(entry.key))' is '\(PrintableText.make(String(entry.value.prefix(64))))', not a frame rate above 0 and at most \(Int(Self.maximumFrameRate)) frames/s")
            }
            (frameRate, frameRateIsFromMetadata) = (declared, true)
        } else {
            (frameRate, frameRateIsFromMetadata) = (PoseStream.fallbackFrameRate, false)
        }
        multiplyAddsPerWindow = graph.multiplyAdds
        let probeShape = graph.values[graph.outputs[0]].shape
        guard probeShape.reduce(1, *) == labels.count else {
            throw CoreMLModelError.notAClassifier(file: fileName, detail: "output '\(contents.outputName)' has \(probeShape.reduce(1, *)) values (\(probeShape)) for \(labels.count) labels")
        }
        runners = GraphRunnerPool(graph: graph, threads: self.threads)
        // One run on zeros: a node no kernel runs surfaces now, naming it, not on the first window.
        do {
            _ = try runners.run(Tensor(zeros: contents.inputShape))
        } catch {
            throw CoreMLModelError.notAClassifier(file: fileName, detail: "\(error)")
        }
    }

    /// The highest `Target Frame Rate` accepted (frames per second).
    static let maximumFrameRate = 1000.0

    /// `Target Frame Rate`, however spaced or cased.
    static func isFrameRateKey(_ key: String) -> Bool {
        key.lowercased().filter { $0.isLetter } == "targetframerate"
    }

    /// The input shape `[T, 3, 18]`.
    public var inputShape: [Int] { [windowLength, 3, VisionJoint.allCases.count] }

    /// Classifies one window: `windowLength · 3 · 18` floats, row-major `[T, 3, 18]`
    /// (``VisionPoseRow/values(for:width:height:)`` per frame, oldest first).
    /// - Throws: ``CoreMLModelError/badWindow(_:)`` for a wrong count or a non-finite value, and
    ///   when the network's output is not finite (values that overflow float32 on the way).
    public func classify(_ window: [Float]) throws -> CreateMLPrediction {
        let expected = windowLength * VisionPoseRow.count
        guard window.count == expected else {
            throw CoreMLModelError.badWindow("\(window.count) values, expected \(expected) ([\(windowLength), 3, 18])")
        }
        if let bad = window.firstIndex(where: { !$0.isFinite }) {
            let row = bad / VisionPoseRow.count, within = bad % VisionPoseRow.count
            throw CoreMLModelError.badWindow("value \(window[bad]) at [\(row), \(within / 18), \(within % 18)]")
        }
        let output = try runners.run(Tensor(shape: inputShape, values: window)).scalars
        // Finite inputs and weights can still overflow float32 inside the network (values near
        // 3e38): that is an error, never a label with NaN probabilities.
        guard output.allSatisfy({ $0.isFinite }) else {
            throw CoreMLModelError.badWindow("the model's output is not finite for this window (its values overflow float32 inside the network)")
        }
        return CreateMLPrediction(labels: labels, probabilities: output)
    }
}

/// A Create ML classifier's verdict on one window.
public struct CreateMLPrediction: Sendable, Equatable {
    /// The model's labels, in output order.
    public let labels: [String]
    /// One probability per label (they sum to 1).
    public let probabilities: [Float]

    /// The most probable label (the first on a tie).
    public var label: String { labels[topIndex] }
    /// Its probability.
    public var confidence: Float { probabilities[topIndex] }
    var topIndex: Int { probabilities.indices.max { probabilities[$0] < probabilities[$1] || (probabilities[$0] == probabilities[$1] && $0 > $1) } ?? 0 }
}

extension CreateMLPrediction {
    /// `{"type": "prediction", "label": ..., "probabilities": {label: p, ...}}` with the labels in
    /// the model's order and spelling, probabilities to at most 6 decimals
    /// (``/PoseCore/JSONText/Decimals/windowCheckProbabilities``, ``/PoseCore/JSONText``'s one rule): what
    /// `posekit actions --classifier MODEL --window FILE` prints. A convenience over ``append(to:)``.
    public var jsonLine: String {
        var json = JSONText(capacity: 256)
        append(to: &json)
        return json.text
    }

    /// Appends ``jsonLine``'s text (no newline) to `json`.
    public func append(to json: inout JSONText) {
        json.raw("{\"type\": \"prediction\", \"label\": "); json.string(label)
        json.raw(", \"probabilities\": {")
        for (i, name) in labels.enumerated() {
            if i > 0 { json.raw(", ") }
            json.string(name); json.raw(": ")
            json.number(Double(probabilities[i]), decimals: JSONText.Decimals.windowCheckProbabilities)
        }
        json.raw("}}")
    }
}
