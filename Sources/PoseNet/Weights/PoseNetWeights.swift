import Foundation
import ModelGraph
import PoseCore
import Tensor

/// A PoseNet's weights, checked once and shared by every ``PoseNetModel`` built from them: the
/// PoseNet family mapper, which makes the network a `ModelGraph.Graph` for any input size and
/// output stride (``graph(inputSize:outputStride:packedHeads:)``).
///
/// The weights do not depend on the input size, the output stride (it changes only strides and
/// dilations) or the thread count, and no forward pass writes them. So every graph made here
/// holds the same constants and one `GraphWeights` store: the models of a multi-scale detector,
/// and the per-thread copies of a detector that keeps several video frames in flight, all run on
/// one packing of the weights (made by the first runner that needs each layer), one copy in
/// memory and in the shared cache instead of one per model (about 5 MB of float32 for MobileNet 0.75).
///
/// Layouts, as the graph reads them: block 0's HWIO `[3, 3, 3, C]`; each block's depthwise
/// weights `[3, 3, C]` and pointwise HWIO `[1, 1, C, Cout]`; each head's HWIO `[1, 1, C, n]`.
public final class PoseNetWeights: @unchecked Sendable {
    /// The 14 block strides of the architecture the weights were trained for (output stride 32).
    public let blockStrides: [Int]
    /// How 0…255 pixel values become network input values.
    public let inputScaling: InputScaling
    /// Output channels of block 0 and of each block 1...13, in order.
    public let blockChannels: [Int]
    /// The arithmetic asked of the pointwise layers that read the backbone's widest activations
    /// (blocks 7–13) and of the heads (resolved: never `auto`); block 0, the depthwise layers and
    /// the narrower pointwise layers are float32 in every precision (`posekit bench model --layers`
    /// shows each layer's).
    public let precision: Precision
    /// Which pointwise layers take a reduced ``precision``: Tensor's one rule with PoseNet's threshold, the
    /// widest input (or the layers ``reducedLayersVariable`` names); carried by every graph made here.
    public let reducedPrecision: ReducedPrecisionRule
    /// The packed forms of these weights, shared by every graph (and so every runner) made from them.
    public let packedWeights = GraphWeights()

    /// A convolution's weights and bias as the graph holds them.
    struct Layer {
        let weights: Tensor
        let bias: Tensor
    }

    /// Block 0, the full 3×3 convolution (HWIO `[3, 3, 3, C]`).
    let firstConvolution: Layer
    /// Blocks 1...13: depthwise `[3, 3, C]`, then pointwise HWIO `[1, 1, C, Cout]`.
    let separableBlocks: [(depthwise: Layer, pointwise: Layer)]
    /// The four heads in ``MobileNetArchitecture/heads``' order, HWIO `[1, 1, C, n]`.
    let heads: [Layer]

    /// Checks the weights `lookup` returns by canonical TF name, such as
    /// `MobilenetV1/Conv2d_3_pointwise/weights` (HWIO layouts, depthwise `[3, 3, C, 1]`).
    ///
    /// - Parameters:
    ///   - lookup: the float32 tensor of a canonical name; throws when there is none.
    ///   - blockStrides: the 14 block strides; `nil` infers them like TF.js does (a last
    ///     pointwise layer that doubles the width means the 1.0 architecture).
    ///   - inputScaling: how pixel values become input values (a bundle's manifest records it).
    ///   - precision: the arithmetic of the 13 pointwise layers and the heads (`/Tensor/Precision`);
    ///     their weights are quantized or rounded once, by the first runner that needs them.
    /// - Throws: ``PoseNetError/badWeights(_:)`` when a tensor is missing or has the wrong shape,
    ///   ``PoseNetError/invalidConfiguration(_:)`` for block strides that are not 14 values of 1 or 2,
    ///   `PrecisionUnavailable` for an explicit `bf16` or `int8` on a CPU without its instructions.
    public init(lookup: (String) throws -> Tensor, blockStrides: [Int]? = nil,
                inputScaling: InputScaling = .minusOneToOne, precision: Precision = .fp32) throws {
        let precision = try precision.resolved()
        self.precision = precision
        func named(_ name: String, rank: Int) throws -> Tensor {
            let t = try lookup(name)
            guard t.rank == rank else { throw PoseNetError.badWeights("\(name) has shape \(t.shape), expected rank \(rank)") }
            return t
        }
        func vector(_ name: String, count: Int) throws -> Tensor {
            let t = try lookup(name)
            guard t.count == count else { throw PoseNetError.badWeights("\(name) has shape \(t.shape), expected [\(count)]") }
            return try t.reshaped([count])
        }

        // Infer the architecture from block 12's pointwise shape when not given.
        let last = try named(PoseNetWeightNames.pointwiseWeights(12), rank: 4)
        let strides = blockStrides ?? MobileNetArchitecture.blockStrides(
            blockChannels: [Int](repeating: 0, count: 11) + [last.shape[2], last.shape[3], 0])
        guard strides.count == MobileNetArchitecture.blockCount, strides.allSatisfy({ $0 == 1 || $0 == 2 }) else {
            throw PoseNetError.invalidConfiguration(
                "block strides must be \(MobileNetArchitecture.blockCount) values of 1 or 2, got \(strides)")
        }
        self.blockStrides = strides
        self.inputScaling = inputScaling
        // Reduced precision only where the input is the backbone's widest (blocks 7–13, on the
        // coarsest grid, and the heads): int8 on every pointwise layer from 64 inputs lost 0.016
        // COCO AP on `images`, on the widest only 0.002, the most time saved within 0.005 there
        // (docs/speed.md, "Which layers": every set and each layer alone, reported on `images-val`).
        // `reducedLayersVariable` names another set, for those studies.
        // The one rule (Tensor's `ReducedPrecisionRule`) with PoseNet's threshold: the widest input.
        let reducedLayers = precision == .fp32 ? nil : try Self.reducedLayersOverride()
        let rule = ReducedPrecisionRule(minimumInputChannels: last.shape[3], layers: reducedLayers.map { Set($0.map(Self.layerName)) })
        reducedPrecision = rule

        let w0 = try named(PoseNetWeightNames.firstConvWeights, rank: 4)
        guard w0.shape[0] == 3, w0.shape[1] == 3, w0.shape[2] == 3 else {
            throw PoseNetError.badWeights("\(PoseNetWeightNames.firstConvWeights) has shape \(w0.shape), expected [3, 3, 3, C]")
        }
        var c = w0.shape[3]
        let b0 = try vector(PoseNetWeightNames.firstConvBiases, count: c)
        firstConvolution = Layer(weights: w0, bias: b0)
        var channels = [c]

        var blocks: [(depthwise: Layer, pointwise: Layer)] = []
        for i in 1..<MobileNetArchitecture.blockCount {
            let dw = try named(PoseNetWeightNames.depthwiseWeights(i), rank: 4)
            guard dw.shape == [3, 3, c, 1] else {
                throw PoseNetError.badWeights("\(PoseNetWeightNames.depthwiseWeights(i)) has shape \(dw.shape), expected [3, 3, \(c), 1]")
            }
            let dwb = try vector(PoseNetWeightNames.depthwiseBiases(i), count: c)
            let pw = try named(PoseNetWeightNames.pointwiseWeights(i), rank: 4)
            guard pw.shape[0] == 1, pw.shape[1] == 1, pw.shape[2] == c else {
                throw PoseNetError.badWeights("\(PoseNetWeightNames.pointwiseWeights(i)) has shape \(pw.shape), expected [1, 1, \(c), Cout]")
            }
            let cout = pw.shape[3]
            let pwb = try vector(PoseNetWeightNames.pointwiseBiases(i), count: cout)
            blocks.append((Layer(weights: try dw.reshaped([3, 3, c]), bias: dwb), Layer(weights: pw, bias: pwb)))
            c = cout
            channels.append(c)
        }
        separableBlocks = blocks
        blockChannels = channels

        var headLayers: [Layer] = []
        for (name, headChannels) in MobileNetArchitecture.heads {
            let hw = try named(PoseNetWeightNames.headWeights(name), rank: 4)
            guard hw.shape == [1, 1, c, headChannels] else {
                throw PoseNetError.badWeights("\(PoseNetWeightNames.headWeights(name)) has shape \(hw.shape), expected [1, 1, \(c), \(headChannels)]")
            }
            headLayers.append(Layer(weights: hw, bias: try vector(PoseNetWeightNames.headBiases(name), count: headChannels)))
        }
        heads = headLayers
    }

    /// Names the pointwise layers a reduced precision runs on, for the layer studies of docs/speed.md
    /// (which layers cost how much AP): block numbers 1–13 and `heads`, comma-separated, e.g.
    /// `7,8,9,10,11,12,13,heads`; `none` for none. Unset: the widest blocks and the heads.
    public static let reducedLayersVariable = "POSEKIT_POSENET_REDUCED_LAYERS"

    /// The heads' number in ``reducedLayersVariable``'s set (after block 13).
    static let headsLayer = MobileNetArchitecture.blockCount

    /// The name the reduced-precision rule knows layer `layer` by: the value its graph node writes,
    /// `MobilenetV1/Conv2d_7_pointwise`, ..., `heads` (the four heads' concatenation, one GEMM).
    static func layerName(_ layer: Int) -> String {
        layer == headsLayer ? PoseNetGraph.headsName : PoseNetGraph.pointwiseName(layer)
    }

    /// The layers ``reducedLayersVariable`` names, nil when it is unset.
    static func reducedLayersOverride() throws -> Set<Int>? {
        guard let value = ProcessInfo.processInfo.environment[reducedLayersVariable] else { return nil }
        var layers = Set<Int>()
        for word in value.split(separator: ",", omittingEmptySubsequences: false) {
            let item = word.trimmingCharacters(in: .whitespaces)
            if item == "heads" {
                layers.insert(headsLayer)
            } else if let block = Int(item), (1..<MobileNetArchitecture.blockCount).contains(block) {
                layers.insert(block)
            } else if item != "none" {
                throw PoseNetError.invalidConfiguration(
                    "\(reducedLayersVariable)=\(value): '\(item)' is not a block 1-\(MobileNetArchitecture.blockCount - 1), heads or none")
            }
        }
        return layers
    }
}

extension PoseNetWeights {
    /// The weights of an imported bundle (`.pkw`), with the block strides and the input scaling
    /// (`preprocessing`: scale, per-channel bias) its manifest records. fp16 weights are widened
    /// to float32 once, here, and checked: a NaN or infinite weight is the bundle's fault, found
    /// at load, not a mystery in the first image's poses.
    ///
    /// - Throws: ``PoseNetError/badWeights(_:)`` naming the bundle's file; `WeightBundleError.corrupt`
    ///   when the manifest's PoseNet section does not read (e.g. an input scaling with 2 biases).
    public convenience init(bundle: WeightBundle, precision: Precision = .fp32) throws {
        let file = bundle.url.path
        try bundle.requireKind(PoseNetSection.kind)
        // Strictly: a section that does not read (a bad input scaling, say) names its problem.
        let section = try bundle.section(PoseNetSection.self)
        func finiteTensor(named name: String) throws -> Tensor {
            let tensor = try bundle.tensor(named: name)
            guard tensor.withUnsafeBufferPointer({ $0.allSatisfy(\.isFinite) }) else {
                throw PoseNetError.badWeights("tensor '\(name)' holds NaN or infinite values")
            }
            return tensor
        }
        do {
            try self.init(lookup: finiteTensor, blockStrides: section.blockStrides, inputScaling: section.preprocessing,
                          precision: precision)
        } catch PoseNetError.badWeights(let problem) {
            throw PoseNetError.badWeights("\(file): \(problem)")
        } catch PoseNetError.invalidConfiguration(let problem) {
            throw PoseNetError.invalidConfiguration("\(file): \(problem)")
        }
    }
}
