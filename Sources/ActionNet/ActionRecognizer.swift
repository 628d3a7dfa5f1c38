import Foundation
import PoseCore
import Tensor

/// Recognizes exercises and counts repetitions in poses: the one-call face of ActionNet, with the
/// `posekit actions` defaults (the committed classifier, its window stride, confidence 0.5).
///
///     let recognizer = try ActionRecognizer()
///     let events = recognizer.events(for: frames)                  // [PoseFrame] → events, summary last
///     for try await event in recognizer.events(from: detector.poses(from: video, smoothing: false)) {
///         print(event.jsonLine)                                      // as `posekit actions` prints it
///     }
///     let verdict = recognizer.classify(PoseWindow(frames: myFrames))  // your own 60-frame window
///
/// The poses can come from ``PoseDetector`` (ideally configured with
/// `PoseDetector.Configuration.actionRecognition`, input 353, which the classifier was trained
/// on, and unsmoothed: `smoothing: false`) or from anywhere else, in image pixels.
///
/// **Thread safety.** A recognizer is immutable apart from its classifier's scratch memory,
/// which ``classify(_:)`` uses under a lock; ``events(for:)``, ``events(from:)`` and
/// ``makeEngine()`` each get a classifier of their own. So one recognizer may be shared by any
/// number of threads and tasks.
public final class ActionRecognizer: @unchecked Sendable {
    /// The classifier's weight bundle (each engine loads its own copy of the classifier).
    private let weightsURL: URL
    /// The pipeline settings every engine gets.
    public let configuration: ActionEngineConfiguration
    private let lock = NSLock()
    /// Used by ``classify(_:)`` only, under `lock`.
    private let classifier: TemporalConvNet

    /// The short name of the classifier weights `posekit actions` uses (`Weights/actionnet.pkw`).
    public static let defaultWeights = "actionnet"

    /// A recognizer for the classifier weights at `weightsURL` (nil: the committed ActionNet
    /// weights, found by ``ModelLocator``).
    ///
    /// - Parameters:
    ///   - confidenceThreshold: windows whose top probability is lower are labeled `low_confidence`.
    ///   - windowStride: model frames (at the weights' rate, 30/s) between windows; nil: the weights' own.
    /// - Throws: ``ModelLocator/NotFound``, a read error, or ``ActionNetError`` for bad weights or settings.
    public init(weightsURL: URL? = nil, confidenceThreshold: Double = 0.5, windowStride: Int? = nil) throws {
        let url = try weightsURL ?? ModelLocator.resolve(Self.defaultWeights)
        self.weightsURL = url
        let (net, header) = try ActionWeightsFile.load(contentsOf: url)
        let c = ActionEngineConfiguration(classifier: net, header: header, confidenceThreshold: confidenceThreshold,
                                          windowStride: windowStride)
        configuration = c
        classifier = net
        _ = try ActionEngine(classifier: net, configuration: c)  // refuses bad settings here, once
    }

    /// Frames per window the classifier takes (60: 2 s at 30 frames/s).
    public var windowLength: Int { configuration.windowLength }

    /// A fresh pipeline for one stream (tracking, prominent person, windows, repetition
    /// counting): feed it frames in time order with ``ActionEngine/process(_:)``, then call
    /// ``ActionEngine/finish()``. One engine is for one thread at a time.
    public func makeEngine() throws -> ActionEngine {
        let (net, _) = try ActionWeightsFile.load(contentsOf: weightsURL)
        return try ActionEngine(classifier: net, configuration: configuration)
    }

    /// Labels one window of ``windowLength`` frames at the model's rate (30/s), oldest first,
    /// each holding the person's pose or nil. Frames and times in the result are the window's.
    ///
    /// - Throws: ``ActionNetError/invalidConfiguration(_:)`` when the window's length is not ``windowLength``.
    public func classify(_ window: PoseWindow) throws -> WindowPrediction {
        guard window.length == windowLength else {
            throw ActionNetError.invalidConfiguration("a window of \(window.length) frames, but the classifier takes \(windowLength)")
        }
        lock.lock()
        defer { lock.unlock() }
        return WindowPrediction(window, realSlots: window.length, classifier: classifier, configuration: configuration)
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
