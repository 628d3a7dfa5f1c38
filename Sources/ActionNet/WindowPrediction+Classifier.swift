extension WindowPrediction {
    /// The classifier's verdict on `window`, whose first `realSlots` frames are real (the rest pad
    /// a window made from a too-short stream): `no_person` when fewer than
    /// ``ActionEngineConfiguration/minimumPoseFraction`` of its frames hold a pose,
    /// `low_confidence` when the top probability is under ``ActionEngineConfiguration/confidenceThreshold``.
    /// (``ActionEngine`` and ``ActionRecognizer`` both label windows here.)
    init(_ window: PoseWindow, realSlots: Int, classifier: TemporalConvNet, configuration: ActionEngineConfiguration) {
        let frames = window.frames
        let first = frames[0], lastReal = frames[realSlots - 1]
        self.init(frameStart: first.sourceFrame, frameEnd: lastReal.sourceFrame,
                  timeStart: first.time, timeEnd: lastReal.time, label: .noPerson, confidence: 0,
                  probabilities: [Double](repeating: 0, count: ActionClass.count),
                  trackID: window.dominantTrackID, topClass: nil)
        if window.realPoseFraction >= configuration.minimumPoseFraction {
            let probs = classifier.probabilities(features: window.features())
            let top = probs.indices.max { probs[$0] < probs[$1] }!
            probabilities = probs
            confidence = probs[top]
            topClass = ActionClass(rawValue: top)
            label = probs[top] >= configuration.confidenceThreshold ? .action(ActionClass(rawValue: top)!) : .lowConfidence
        }
    }
}
