import PoseCore
import Tensor

/// PoseNet's section of a weight bundle's manifest (``/Tensor/WeightManifest/network`` when ``/Tensor/WeightManifest/kind``
/// is ``PoseNetSection/kind``): the MobileNetV1 layout and how to feed it.
///
/// ```json
/// "network": { "family": "posenet-mobilenet-v1", "widthMultiplier": 0.75,
///              "blockStrides": [2,1,2,1,2,1,2,1,1,1,1,1,1,1], "outputStride": 16,
///              "outputStrideIsFromSource": true,
///              "preprocessing": { "colorOrder": "RGB", "scale": 0.007843138, "bias": [-1,-1,-1] } }
/// ```
/// `preprocessing` is PoseCore's ``/PoseCore/InputScaling``, the type the network-input writer applies.
public struct PoseNetSection: Codable, Sendable, Equatable {
    /// The manifest `kind` of PoseNet bundles.
    public static let kind = "posenet"
    /// The network family; PoseKit knows ``PoseNetWeightNames/family``.
    public var family: String
    /// MobileNetV1 width multiplier (0.5, 0.75, 1.0): block 0 has `32 × width` channels.
    public var widthMultiplier: Double
    /// Stride of each of the 14 backbone blocks as the architecture defines them (before any
    /// output-stride rewrite): block 0 is the full 3×3 conv, blocks 1–13 depthwise-separable.
    public var blockStrides: [Int]
    /// The output stride the source model was exported at, or 16 (the TF.js default) when the
    /// source does not say. The network may run at any of 8/16/32: PoseNet weights do not depend on it.
    public var outputStride: Int
    /// Whether ``outputStride`` was read from the source model rather than defaulted.
    public var outputStrideIsFromSource: Bool
    /// How RGB pixels (0…255) become network input.
    public var preprocessing: InputScaling

    /// An empty section (what a manifest of another kind reads as; its family matches nothing).
    static let none = PoseNetSection(family: "", widthMultiplier: 0, blockStrides: [], outputStride: 16,
                                     outputStrideIsFromSource: false, preprocessing: .minusOneToOne)
}

extension WeightManifest {
    /// A PoseNet manifest (kind `"posenet"`, named after the source file) with these settings.
    public init(family: String, widthMultiplier: Double, blockStrides: [Int], outputStride: Int,
                outputStrideIsFromSource: Bool, preprocessing: InputScaling, source: Source,
                license: License, tensors: [TensorEntry] = []) {
        let section = PoseNetSection(family: family, widthMultiplier: widthMultiplier, blockStrides: blockStrides,
                                     outputStride: outputStride, outputStrideIsFromSource: outputStrideIsFromSource,
                                     preprocessing: preprocessing)
        // Encoding plain numbers, strings and arrays cannot fail.
        try! self.init(kind: PoseNetSection.kind, name: source.fileName, section: section, source: source,
                       license: license, tensors: tensors)
    }

    /// The PoseNet section; for a bundle of another kind (or a damaged section) an empty one,
    /// whose ``PoseNetSection/family`` matches no network.
    public var posenet: PoseNetSection {
        get {
            guard kind == PoseNetSection.kind, let section = try? section(PoseNetSection.self) else { return .none }
            return section
        }
        set { try! setSection(newValue) }
    }

    /// The network family (PoseNet section).
    public var family: String {
        get { posenet.family }
        set { posenet.family = newValue }
    }
    /// MobileNetV1 width multiplier (PoseNet section).
    public var widthMultiplier: Double {
        get { posenet.widthMultiplier }
        set { posenet.widthMultiplier = newValue }
    }
    /// Stride of each backbone block (PoseNet section).
    public var blockStrides: [Int] {
        get { posenet.blockStrides }
        set { posenet.blockStrides = newValue }
    }
    /// The source model's output stride (PoseNet section).
    public var outputStride: Int {
        get { posenet.outputStride }
        set { posenet.outputStride = newValue }
    }
    /// Whether ``outputStride`` came from the source (PoseNet section).
    public var outputStrideIsFromSource: Bool {
        get { posenet.outputStrideIsFromSource }
        set { posenet.outputStrideIsFromSource = newValue }
    }
    /// How RGB pixels become network input (PoseNet section).
    public var preprocessing: InputScaling {
        get { posenet.preprocessing }
        set { posenet.preprocessing = newValue }
    }

    /// Output channels of each of the 14 backbone blocks, read from the tensor shapes
    /// (block 0: `Conv2d_0/weights` axis 3; block i: `Conv2d_i_pointwise/weights` axis 3), or
    /// `nil` when a tensor is missing or not HWIO rank 4.
    public var blockChannels: [Int]? {
        func outputs(_ name: String) -> Int? {
            guard let t = tensors.first(where: { $0.name == name }), t.shape.count == 4 else { return nil }
            return t.shape[3]
        }
        var out: [Int] = []
        for block in 0..<PoseNetWeightNames.blockCount {
            guard let c = outputs(block == 0 ? PoseNetWeightNames.firstConvWeights : PoseNetWeightNames.pointwiseWeights(block)) else { return nil }
            out.append(c)
        }
        return out
    }
}
