import Foundation
import PoseNet
import Tensor

extension PoseDetector {
    /// A detector for one of the bundled models (or a bundle file) with the `posekit pose`
    /// defaults, or the given ``Configuration``.
    ///
    ///     let detector = try PoseDetector(model: .mobilenet075)
    ///
    /// - Throws: ``/Tensor/ModelLocator/NotFound`` when the weights cannot be found (the message says how
    ///   to get them), a ``/Tensor/WeightBundleError`` naming the file for a broken bundle or one of another network, ``/PoseNet/PoseNetError`` for a
    ///   configuration the network cannot run (an input size under 33, an output stride not 8, 16 or 32),
    ///   `PrecisionUnavailable` for a ``Configuration/precision`` this CPU lacks the instructions of.
    public convenience init(model: PoseModel, configuration: Configuration = .default) throws {
        let url = try model.bundleURL()
        try self.init(bundle: try WeightBundle(contentsOf: url), configuration: configuration)
    }

    /// A detector for weights already loaded.
    public convenience init(bundle: WeightBundle, configuration: Configuration = .default) throws {
        try configuration.decoding.parameters.validate()
        let network = try PoseNetModel(weights: PoseNetWeights(bundle: bundle, precision: configuration.precision),
                                       inputSize: configuration.inputSize, outputStride: configuration.outputStride,
                                       threads: configuration.resolvedThreads)
        self.init(model: network, decoding: configuration.decoding, geometry: configuration.geometry)
    }
}
