import Foundation
import FrameIO
import PoseNet
import Tensor

extension ModelOptions {
    /// Loads the weight bundle and plans the network for these options.
    func makeModel() throws -> PoseNetModel {
        let url = try ModelLocator.resolve(model)
        let bundle = try WeightBundle(contentsOf: url)
        return try PoseNetModel(bundle: bundle, inputSize: inputSize, outputStride: outputStride,
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

/// Opens an output path for writing (`-` is standard output).
func openSink(_ path: String) throws -> ByteSink {
    path == "-" ? ByteSink(fileDescriptor: 1) : try ByteSink(path: path)
}
