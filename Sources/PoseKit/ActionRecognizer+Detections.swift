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
