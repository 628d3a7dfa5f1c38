import PoseCore
import Foundation
import Tensor

extension PoseNetModel {
    /// Builds the network from an imported weight bundle (`.pkw`); see
    /// ``PoseNetWeights/init(bundle:precision:)``.
    public convenience init(bundle: WeightBundle, inputSize: Int, outputStride: Int, threads: Int) throws {
        try self.init(weights: PoseNetWeights(bundle: bundle), inputSize: inputSize, outputStride: outputStride, threads: threads)
    }
}
