import Foundation
import Tensor

extension PoseNetModel {
    /// Builds the network from an imported weight bundle (`.pkw`), using the block strides its
    /// manifest records. fp16 weights are widened to float32 once, here.
    public convenience init(bundle: WeightBundle, inputSize: Int, outputStride: Int, threads: Int) throws {
        try bundle.requireKind(PoseNetSection.kind)
        try self.init(weights: { try bundle.tensor(named: $0) }, blockStrides: bundle.manifest.blockStrides,
                      inputSize: inputSize, outputStride: outputStride, threads: threads)
    }
}
