import Foundation
import PoseCore
import Tensor

/// Recognizes exercises and counts repetitions in poses: the one-call face of ActionNet, with the
/// `posekit actions` defaults (the committed classifier, its window stride, confidence 0.5).
///
///     let recognizer = try ActionRecognizer()
///     let events = recognizer.events(for: frames)                  // [PoseFrame] → events, summary last
///     for try await event in recognizer.events(from: detector.poses(from: video)) {
///         print(event.jsonLine)                                      // as `posekit actions` prints it
///     }
///     let verdict = recognizer.classify(PoseWindow(frames: myFrames))  // your own 60-frame window
///
/// A Create ML action classifier runs the same way, with its labels as the model spells them:
///
///     let exercises = try ActionRecognizer(createMLModel: URL(fileURLWithPath: "ExerciseClassifier.mlmodel"))
///     let events = try exercises.events(for: frames)   // frames with their width and height
///
/// The poses can come from PoseNet's `PoseDetector` with its defaults (`PoseDetector.Configuration.default`,
/// smoothed video: what `posekit pose` and `posekit actions` run, so both give this recognizer
/// the same poses) or from anywhere else, in image pixels.
///
/// **Thread safety.** A recognizer is immutable apart from its classifier's scratch memory,
/// which ``classify(_:imageWidth:imageHeight:)`` uses under a lock; ``events(for:)``, ``events(from:)`` and
/// ``makeEngine()`` each get a classifier of their own. So one recognizer may be shared by any
/// number of threads and tasks.
public final class ActionRecognizer: @unchecked Sendable {
    /// ActionNet's weight bundle (each engine loads its own copy of the classifier), or nil for a
    /// Create ML classifier (immutable, shared by every engine).
    private let weightsURL: URL?
    /// The pipeline settings every engine gets.
    public let configuration: ActionEngineConfiguration
    private let lock = NSLock()
    /// Used by ``classify(_:)`` only, under `lock`.
    private let classifier: WindowClassifier

    /// The short name of the classifier weights `posekit actions` uses (`Weights/actionnet.pkw`).
    public static let defaultWeights = ModelLocator.actionModel

    /// A recognizer for the classifier weights at `weightsURL` (nil: the committed ActionNet
    /// weights, found by ``/Tensor/ModelLocator``).
    ///
    /// - Parameters:
    ///   - weightsURL: an ActionNet weight bundle (`.pkw`, or an earlier `PKACTN01` file); nil for
    ///     `actionnet` wherever ``/Tensor/ModelLocator`` finds it.
    ///   - confidenceThreshold: windows whose top probability is lower are labeled `low_confidence`.
    ///   - windowStride: model frames (at the weights' rate, 30/s) between windows; nil: the weights' own.
    ///   - tracking: how people are told apart (`posekit pose`'s defaults).
    /// - Throws: ``/Tensor/ModelLocator/NotFound``, a ``/Tensor/WeightBundleError`` naming the file, or ``ActionNetError`` for bad weights or settings.
    public init(weightsURL: URL? = nil, confidenceThreshold: Double = 0.5, windowStride: Int? = nil,
                tracking: PoseTracker.Configuration = PoseTracker.Configuration()) throws {
        let url = try weightsURL ?? ModelLocator.resolve(Self.defaultWeights)
        self.weightsURL = url
        let (net, header) = try ActionWeightsFile.load(contentsOf: url)
        let c = ActionEngineConfiguration(classifier: net, header: header, confidenceThreshold: confidenceThreshold,
                                          windowStride: windowStride, tracking: tracking)
        configuration = c
        classifier = .actionNet(net)
        _ = try ActionEngine(classifier: net, configuration: c)  // refuses bad settings here, once
    }

    /// A recognizer running the Create ML action classifier at `url` (a `.mlmodel`): windows of
    /// its length at its frame rate (metadata, else 30/s), one every `windowStride` frames (nil:
    /// 10, as Apple's sample), labeled with its classes as it spells them; repetitions counted
    /// for the classes `counters` maps to a counter (nil: the labels that name an exercise,
    /// ``RepetitionCounterMapping/matchingNames(_:)``), under the model's labels.
    /// - Throws: ``CoreMLModelError`` for a file that is not a runnable action classifier;
    ///   ``ActionNetError`` for a mapping naming a class the model lacks.
    public convenience init(createMLModel url: URL, confidenceThreshold: Double = 0.5, windowStride: Int? = nil,
                            counters: RepetitionCounterMapping? = nil) throws {
        try self.init(createML: try CreateMLActionClassifier(contentsOf: url), confidenceThreshold: confidenceThreshold,
                      windowStride: windowStride, counters: counters)
    }

    /// A recognizer running a Create ML action classifier already loaded (shared, immutable), as
    /// ``init(createMLModel:confidenceThreshold:windowStride:counters:)``; `tracking` tells people apart.
    /// - Throws: ``ActionNetError`` for a mapping naming a class the model lacks or bad settings.
    public init(createML model: CreateMLActionClassifier, confidenceThreshold: Double = 0.5, windowStride: Int? = nil,
                counters: RepetitionCounterMapping? = nil, tracking: PoseTracker.Configuration = PoseTracker.Configuration()) throws {
        weightsURL = nil
        configuration = ActionEngineConfiguration(createML: model, confidenceThreshold: confidenceThreshold, windowStride: windowStride,
                                                  tracking: tracking, counters: counters)
        classifier = .createML(model)
        _ = try ActionEngine(windowClassifier: classifier, configuration: configuration)
    }

    /// Frames per window the classifier takes (60: 2 s at 30 frames/s).
    public var windowLength: Int { configuration.windowLength }

    /// A fresh pipeline for one stream (tracking, prominent person, windows, repetition
    /// counting): feed it frames in time order with ``ActionEngine/process(_:)``, then call
    /// ``ActionEngine/finish()``. One engine is for one thread at a time.
    public func makeEngine() throws -> ActionEngine {
        guard let weightsURL else { return try ActionEngine(windowClassifier: classifier, configuration: configuration) }
        let (net, _) = try ActionWeightsFile.load(contentsOf: weightsURL)
        return try ActionEngine(classifier: net, configuration: configuration)
    }

    /// Labels one window of ``windowLength`` frames at the model's rate (30/s), oldest first,
    /// each holding the person's pose or nil. Frames and times in the result are the window's.
    /// A Create ML classifier also needs the size of the image the poses are in.
    ///
    /// - Throws: ``ActionNetError/invalidConfiguration(_:)`` when the window's length is not
    ///   ``windowLength``, or a Create ML classifier gets no image size.
    public func classify(_ window: PoseWindow, imageWidth: Int = 0, imageHeight: Int = 0) throws -> WindowPrediction {
        if case .createML = classifier, imageWidth <= 0 || imageHeight <= 0 {
            throw ActionNetError.invalidConfiguration("a Create ML classifier needs the image size of the window's poses")
        }
        guard window.length == windowLength else {
            throw ActionNetError.invalidConfiguration("a window of \(window.length) frames, but the classifier takes \(windowLength)")
        }
        lock.lock()
        defer { lock.unlock() }
        return WindowPrediction(window, realSlots: window.length, classifier: classifier, configuration: configuration,
                                imageWidth: imageWidth, imageHeight: imageHeight)
    }

    /// Every event for a whole stream of frames in time order: window predictions and
    /// repetitions as they are known, the summary last (exactly what `posekit actions --poses` prints).
    public func events<Frames: Sequence>(for frames: Frames) throws -> [ActionEvent] where Frames.Element == PoseFrame {
        let engine = try makeEngine()
        var events: [ActionEvent] = []
        for frame in frames { events += engine.process(frame) }
        return events + engine.finish()
    }

    /// The events of an async stream of frames, as each becomes known, the summary last.
    /// Frames are pulled one at a time as the consumer asks for events.
    public func events<Frames: AsyncSequence>(from frames: Frames) -> ActionEventSequence<Frames> where Frames.Element == PoseFrame {
        ActionEventSequence(recognizer: self, frames: frames)
    }
}
