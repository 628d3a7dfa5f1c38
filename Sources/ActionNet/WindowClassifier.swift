/// The classifier ``ActionEngine`` and ``ActionRecognizer`` label windows with: ActionNet's own
/// temporal convolution network, or a Create ML action classifier run from its `.mlmodel`.
///
/// Both see the same windows of the prominent person (``PoseWindow``, at the classifier's frame
/// rate); each builds its own input from them: ActionNet its normalized features
/// (``PoseWindow/features()``), a Create ML model Vision's `[T, 3, 18]` rows
/// (``PoseWindow/visionInput(width:height:)``), which need the image size.
enum WindowClassifier {
    case actionNet(TemporalConvNet)
    case createML(CreateMLActionClassifier)

    var windowLength: Int {
        switch self {
        case .actionNet(let net): return net.architecture.windowLength
        case .createML(let model): return model.windowLength
        }
    }

    /// The label of each output, in output order.
    var classLabels: [ActionLabel] {
        switch self {
        case .actionNet: return ActionClass.allCases.map { .action($0) }
        case .createML(let model): return model.labels.map { .modelClass($0) }
        }
    }

    /// ActionNet's `other` for its output (a class of its own that no counter counts); nil for
    /// every other output, and for every output of a Create ML model without a counter.
    func uncountedClass(forOutput index: Int) -> ActionClass? {
        if case .actionNet = self, index == ActionClass.other.rawValue { return .other }
        return nil
    }

    /// One probability per output for `window`, whose poses are in a `width × height` image.
    ///
    /// - Throws: ``CoreMLModelError/badWindow(_:)`` when a Create ML model's values overflow
    ///   float32 inside the network on this window (checked at load on a window of zeros, a
    ///   model of finite but huge weights fails only on real poses): the stream stops with that
    ///   error, as `--window` does, rather than labeling every window `low_confidence`.
    func probabilities(_ window: PoseWindow, imageWidth: Int, imageHeight: Int) throws -> [Double] {
        switch self {
        case .actionNet(let net):
            return net.probabilities(features: window.features())
        case .createML(let model):
            return try model.classify(window.visionInput(width: imageWidth, height: imageHeight)).probabilities.map(Double.init)
        }
    }
}
