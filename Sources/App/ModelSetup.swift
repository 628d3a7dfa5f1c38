import Foundation
import FrameIO
import PoseCore
import PoseNet
import Tensor

extension ModelOptions {
    /// The input size for finding poses: 513 gives the best accuracy (COCO AP 0.52 on the shared
    /// images vs 0.38 at 353 and 0.29 at 257) and still runs 70+ frames/s end to end on 2 cores.
    static let defaultInputSize = 513

    /// Loads the weight bundle and plans the network for these options.
    func makeModel(defaultInputSize: Int = ModelOptions.defaultInputSize) throws -> PoseNetModel {
        let url = try ModelLocator.resolve(model)
        let bundle = try CLIError.reading(url.path) { try WeightBundle(contentsOf: url) }
        return try PoseNetModel(bundle: bundle, inputSize: inputSize ?? defaultInputSize, outputStride: outputStride,
                                threads: threads ?? Parallelism.defaultThreads)
    }

    var geometry: NetworkInputWriter.Geometry { resize == .letterbox ? .letterbox : .stretch }
}

extension DecodeOptions {
    var decoding: PoseDecoding {
        PoseDecoding(
            mode: mode == .single ? .single : .multi,
            parameters: MultiPoseParameters(
                maxPoses: maxPoses, partScoreThreshold: scoreThreshold, nmsRadius: nmsRadius,
                localMaximumRadius: 1, refineSteps: refineSteps, minPoseScore: minPoseScore),
            flipAveraging: flip)
    }
}
