import ArgumentParser
import PoseCore
import PoseNet
import Tensor

/// The accuracy preset, shared by `pose` and `eval`: `--accurate`.
struct AccuracyOptions: ParsableArguments {
    @Flag(help: "Accuracy preset: flip averaging, output stride 8, input sizes 769 and 609 merged (about 20x slower).")
    var accurate = false

    /// The largest input of the preset; the second is the `16k + 1` size nearest 0.8 of it.
    /// Larger inputs find the many small and mid-size people better (COCO AP on the shared
    /// images, flip + stride 8: 0.620 for 641+513, 0.669 for 769+609, 0.677 for 897+721);
    /// 769 is the knee, at about 2.2x the work of 513 per scale.
    static let accurateInputSize = 769

    /// A usage error when `--accurate` is combined with the options it sets itself.
    func check(_ model: ModelOptions, _ decode: DecodeOptions) throws {
        if accurate && (model.outputStride != 16 || decode.flip) {
            throw ValidationError("--accurate sets flip averaging and output stride 8 itself; drop --flip / --output-stride")
        }
    }

    /// The detector the options ask for: a plain ``PoseDetector``, or with `--accurate` a
    /// ``MultiScalePoseDetector`` over two input sizes (`--input-size`, default 769, and the
    /// `16k + 1` size nearest 0.8 of it), output stride 8, flip averaging at both.
    func makeDetector(_ model: ModelOptions, _ decode: DecodeOptions) throws -> any PoseFinding {
        guard accurate else { return try model.makeDetector(decode) }
        let url = try ModelLocator.resolve(model.model)
        let weights = try CLIError.reading(url.path) { try PoseNetWeights(bundle: WeightBundle(contentsOf: url)) }
        let large = model.inputSize ?? Self.accurateInputSize
        let small = max(33, Int((Double(large - 1) * 0.8 / 16).rounded()) * 16 + 1)
        let models = try [large, small].map {  // both sizes read one copy of the weights
            try PoseNetModel(weights: weights, inputSize: $0, outputStride: 8, threads: model.resolvedThreads)
        }
        var decoding = decode.decoding
        decoding.flipAveraging = true
        return try MultiScalePoseDetector(models: models, decoding: decoding, geometry: model.geometry)
    }
}
