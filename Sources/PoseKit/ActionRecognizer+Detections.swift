/// Action recognition straight from a detector's stream.
extension ActionRecognizer {
    /// The exercises and repetitions in `detections` (`poses(from:)`
    /// with its defaults, as `posekit actions` runs it), the summary last.
    ///
    ///     let detector = try PoseDetector(model: .mobilenet075)
    ///     for try await event in try ActionRecognizer().events(from: detector.poses(inMediaAt: "workout.mp4")) {
    ///         print(event.jsonLine)
    ///     }
    public func events<Detections: AsyncSequence & Sendable>(from detections: Detections)
        -> ActionEventSequence<AsyncMapSequence<Detections, PoseFrame>> where Detections.Element == DetectedFrame {
        events(from: detections.map { $0.poseFrame() })
    }
}

extension ActionEngine {
    /// Consumes one frame of a detector's stream (what `ActionRecognizer.events(from:)` feeds each
    /// engine, and `posekit actions` each frame): its poses and size at its time, or for a stream
    /// without a frame rate at its index over `frameRate`.
    public func process(_ detected: DetectedFrame, frameRate: Double = PoseStream.fallbackFrameRate) throws -> [ActionEvent] {
        try process(detected.poseFrame(frameRate: frameRate))
    }
}
