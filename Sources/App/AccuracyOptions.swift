import ArgumentParser
import Foundation
import PoseKit

/// How the network sees each image, shared by `pose` and `eval`: the accuracy preset
/// `--accurate`, several input sizes merged (`--input-sizes`), and the upscale limit.
struct AccuracyOptions: ParsableArguments {
    @Flag(help: ArgumentHelp("Accuracy preset: \(AccuracyPreset.summary) (about \(AccuracyPreset.relativeCost.shortText)x the time of the default). \(AccuracyPreset.promise) (docs/accuracy.md)."))
    var accurate = false

    @Option(name: .long, help: ArgumentHelp(
        "Run the network at each of these input sizes (largest first, each stride·k+1, e.g. 769,513) and average the heads before decoding (multi-scale; instead of --input-size).",
        valueName: "n,n,...", visibility: .hidden))
    var inputSizes: InputSizeList?

    @Option(name: .long, help: ArgumentHelp(
        "Enlarge no image more than this many times: an image whose long side times this is under the input size runs at a smaller input (the largest stride·k+1 size within it; 1 = never past its native size; \(Limits.maxUpscale.text); default: no limit).",
        valueName: "x", visibility: .hidden))
    var maxUpscale: Double?

    /// Usage errors: `--accurate` with the options it sets itself, sizes that cannot be merged.
    func check(_ model: ModelOptions, _ decode: DecodeOptions) throws {
        if accurate && (model.outputStride != 16 || decode.flip || inputSizes != nil || maxUpscale != nil) {
            throw ValidationError("--accurate sets the input sizes, output stride, flip averaging and upscale limit itself; drop --input-sizes / --output-stride / --flip / --max-upscale (--input-size sets its largest size)")
        }
        if inputSizes != nil && model.inputSize != nil { throw ValidationError("give either --input-size or --input-sizes, not both") }
        if let maxUpscale { try Limits.maxUpscale.check(maxUpscale, "--max-upscale") }
        let plan = scales(model, decode)
        try Limits.inputSize.check(plan.sizes, "--input-sizes")
        guard plan.sizes.count > 1 || plan.maximumUpscale != nil else { return }
        for size in plan.sizes where (size - 1) % plan.outputStride != 0 {
            let below = (size - 1) / plan.outputStride * plan.outputStride + 1
            throw ValidationError("input sizes that are merged or capped must be \(plan.outputStride)k+1 at output stride \(plan.outputStride), so their grids align; \(size) is not (\(below) or \(below + plan.outputStride) are)")
        }
        if zip(plan.sizes, plan.sizes.dropFirst()).contains(where: { $0 <= $1 }) {
            throw ValidationError("--input-sizes must be given largest first, each once; got \(plan.sizes.map(String.init).joined(separator: ","))")
        }
    }


    /// The preset's scales, or those the other options set.
    func scales(_ model: ModelOptions, _ decode: DecodeOptions) -> InputScales {
        if accurate { return AccuracyPreset.scales(largest: model.inputSize) }
        return InputScales(sizes: inputSizes?.sizes ?? [model.inputSize ?? ModelOptions.defaultInputSize], outputStride: model.outputStride,
                      flip: decode.flip, maximumUpscale: maxUpscale)
    }

    /// The detector the options ask for: a plain ``PoseDetector`` for one size without an
    /// upscale limit, otherwise a ``MultiScalePoseDetector`` over the sizes (on one copy of the weights).
    func makeDetector(_ model: ModelOptions, _ decode: DecodeOptions) throws -> any PoseFinding {
        let plan = scales(model, decode)
        var decoding = decode.decoding
        decoding.flipAveraging = plan.flip
        guard plan.sizes.count > 1 || plan.maximumUpscale != nil else { return try model.makeDetector(decode) }
        let url = try ModelLocator.resolve(model.model)
        try model.requirePrecision()
        let weights = try CLIError.reading(url.path) {
            try PoseNetWeights(bundle: WeightBundle(contentsOf: url), precision: model.precision)
        }
        let models = try plan.sizes.map {
            try PoseNetModel(weights: weights, inputSize: $0, outputStride: plan.outputStride, threads: model.resolvedThreads)
        }
        return try MultiScalePoseDetector(models: models, decoding: decoding, maximumUpscale: plan.maximumUpscale, geometry: model.geometry)
    }
}

/// Input sizes on the command line, comma-separated (`769,513`).
struct InputSizeList: ExpressibleByArgument, Equatable {
    let sizes: [Int]

    init?(argument: String) {
        let sizes = argument.split(separator: ",", omittingEmptySubsequences: false).map { Int($0.trimmingCharacters(in: .whitespaces)) }
        guard !sizes.isEmpty, sizes.allSatisfy({ $0 != nil }) else { return nil }
        self.sizes = sizes.compactMap { $0 }
    }
}

extension Double {
    /// `1.5`, `2` (no trailing `.0`), as help texts show a factor.
    var shortText: String { self == rounded() ? String(Int(self)) : String(self) }
}
