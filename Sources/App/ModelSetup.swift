import Foundation
import FrameIO
import PoseNet
import Tensor

extension ModelOptions {
    /// The input size for finding poses: 513 gives the best accuracy (COCO AP 0.52 on the shared
    /// images vs 0.38 at 353 and 0.29 at 257) and still runs 70+ frames/s end to end on 2 cores.
    static let defaultInputSize = 513

    /// Loads the weight bundle and plans the network for these options.
    func makeModel(defaultInputSize: Int = ModelOptions.defaultInputSize) throws -> PoseNetModel {
        let url = try ModelLocator.resolve(model)
        let bundle = try WeightBundle(contentsOf: url)
        return try PoseNetModel(bundle: bundle, inputSize: inputSize ?? defaultInputSize, outputStride: outputStride,
                                threads: threads ?? Parallelism.defaultThreads)
    }

    /// The largest input of the accuracy preset (`--accurate`); the second is 0.8 of it.
    static let accurateInputSize = 641

    /// The accuracy preset: flip averaging, output stride 8, and two input sizes (the given
    /// size, default ``accurateInputSize``, and the `16k + 1` size nearest 0.8 of it) merged
    /// before decoding (README "Accuracy preset" has the measurements behind these choices).
    func makeAccurateDetector(decoding: PoseDecoding) throws -> MultiScalePoseDetector {
        let url = try ModelLocator.resolve(model)
        let bundle = try WeightBundle(contentsOf: url)
        let large = inputSize ?? Self.accurateInputSize
        let small = max(33, Int((Double(large - 1) * 0.8 / 16).rounded()) * 16 + 1)
        let models = try [large, small].map {
            try PoseNetModel(bundle: bundle, inputSize: $0, outputStride: 8, threads: threads ?? Parallelism.defaultThreads)
        }
        var flipped = decoding
        flipped.flipAveraging = true
        return try MultiScalePoseDetector(models: models, decoding: flipped)
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
