extension WindowPrediction {
    /// The classifier's verdict on `window`, whose first `realSlots` frames are real (the rest pad
    /// a window made from a too-short stream): `no_person` when fewer than
    /// ``ActionEngineConfiguration/minimumPoseFraction`` of its frames hold a pose,
    /// `low_confidence` when the top probability is under ``ActionEngineConfiguration/confidenceThreshold``.
    /// (``ActionEngine`` and ``ActionRecognizer`` both label windows here.)
    /// `topClass` is the counter the top output is mapped to (``ActionEngineConfiguration/counters``),
    /// which the repetitions must match; `imageWidth` × `imageHeight` is the frames' size (a
    /// Create ML classifier's coordinates are normalized by it).
    /// - Throws: the classifier's error on a window it cannot label (``WindowClassifier/probabilities(_:imageWidth:imageHeight:)``).
    init(_ window: PoseWindow, realSlots: Int, classifier: WindowClassifier, configuration: ActionEngineConfiguration,
         imageWidth: Int = 0, imageHeight: Int = 0) throws {
        let frames = window.frames
        let first = frames[0], lastReal = frames[realSlots - 1]
        let labels = classifier.classLabels
        self.init(frameStart: first.sourceFrame, frameEnd: lastReal.sourceFrame,
                  timeStart: first.time, timeEnd: lastReal.time, label: .noPerson, confidence: 0,
                  probabilities: [Double](repeating: 0, count: labels.count),
                  trackID: window.dominantTrackID, topClass: nil, classNames: labels.map(\.name))
        if window.realPoseFraction >= configuration.minimumPoseFraction {
            let probs = try classifier.probabilities(window, imageWidth: imageWidth, imageHeight: imageHeight)
            let top = probs.indices.max { probs[$0] < probs[$1] }!
            probabilities = probs
            confidence = probs[top]
            topClass = configuration.counters.counter(forLabel: labels[top].name) ?? classifier.uncountedClass(forOutput: top)
            label = probs[top] >= configuration.confidenceThreshold ? labels[top] : .lowConfidence
        }
    }
}
