import PoseCore
import Foundation
import Tensor

extension PoseNetModel {
    /// Builds the network from an imported weight bundle (`.pkw`), using the block strides and the
    /// input scaling (`preprocessing`: scale, per-channel bias) its manifest records. fp16 weights
    /// are widened to float32 once, here.
    public convenience init(bundle: WeightBundle, inputSize: Int, outputStride: Int, threads: Int) throws {
        try bundle.requireKind(PoseNetSection.kind)
        let preprocessing = bundle.manifest.preprocessing
        guard preprocessing.bias.count == 3, preprocessing.scale.isFinite, preprocessing.bias.allSatisfy(\.isFinite) else {
            throw PoseNetError.badWeights("manifest preprocessing needs a finite scale and 3 finite biases, got scale \(preprocessing.scale), bias \(preprocessing.bias)")
        }
        let scaling = InputScaling(scale: Float(preprocessing.scale), bias: preprocessing.bias.map { Float($0) })
        try self.init(weights: { try bundle.tensor(named: $0) }, blockStrides: bundle.manifest.blockStrides,
                      inputSize: inputSize, outputStride: outputStride, threads: threads, inputScaling: scaling)
    }
}
