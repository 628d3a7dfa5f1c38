import CoreMLFormat
import PoseNet
import Protobuf
import PoseCore
import Tensor
/// Imports PoseNet weights from a Core ML `.mlmodel` (the NeuralNetwork specification).
///
/// Supported: exactly the graph a PoseNet MobileNetV1 export has, checked layer by layer —
///
/// ```
/// image ─▶ conv 3×3 (groups 1) ─▶ batchnorm ─▶ ReLU6            block 0
///       ─▶ [conv 3×3 depthwise ─▶ bn ─▶ ReLU6 ─▶ conv 1×1 ─▶ bn ─▶ ReLU6] × 13
///       ─▶ 4 heads: conv 1×1 ─▶ bn (─▶ sigmoid on the heatmap)
/// ```
///
/// where ReLU6 is Core ML's four-layer spelling `ReLU → linear(α −1) → unary threshold(α −6)
/// → linear(α −1)`, i.e. `−max(−relu(x), −6) = min(max(x, 0), 6)`. Convolutions must use TF
/// "same" padding (bottom/right heavy), no dilation, fp32 or fp16 weights. Batchnorm is folded
/// into the preceding convolution: `scale = γ / √(var + ε)`, weights ×= scale per output
/// channel, `bias = β − mean·scale (+ scale·convBias)`. Weights are transposed from Core ML's
/// OIHW (`[Cout, Cin/groups, kH, kW]`) to HWIO, depthwise to `[kH, kW, C, 1]`. The image
/// preprocessing scaler becomes the manifest's preprocessing.
///
/// Anything else (another layer type, a different order, quantised weights, dilation, a
/// pipeline model) is refused with a one-line ``ImportError`` naming the file and the layer.
/// The PoseNet family on Core ML's one reader (`CoreMLFormat`: the model, its layers and their
/// parameters, integers range-checked, weights by one fp16 rule); only the matching of PoseNet's
/// chain and the folding into its tensors live here.
enum CoreMLImporter {
    typealias F = CoreMLField

    /// Reads the model in `bytes` (the contents of `file`).
    static func read(_ bytes: [UInt8], file: String) throws -> ImportedWeights {
        do {
            return try Parser(file: file).run(CoreMLModelSpec(bytes: bytes), sha256: SHA256.hexDigest(bytes))
        } catch let error as CoreMLFormatError {
            throw ImportError(error, file: file)
        } catch let error as ProtobufError {
            throw ImportError.malformed(file: file, detail: "\(error)")
        }
    }

    /// A convolution after batchnorm folding, already in TensorFlow layout.
    struct FoldedConv {
        let weights: [Float]
        let shape: [Int]
        let biases: [Float]
        let stride: Int
        let dtype: WeightDType
        let outputChannels: Int
    }

    enum ConvKind { case full3x3, depthwise3x3, pointwise1x1 }

    typealias Layer = CoreMLLayerSpec

    struct Parser {
        let file: String

        func unsupported(_ layer: Layer, _ detail: String) -> ImportError {
            ImportError.unsupportedLayer(file: file, layer: layer.name, detail: detail)
        }

        func run(_ model: CoreMLModelSpec, sha256: String) throws -> ImportedWeights {
            guard let network = model.neuralNetwork, !network.isClassifier else {
                let what = model.typeField.map { "model type field \($0)" } ?? "no model body"
                throw ImportError.unsupportedModel(file: file, detail: "not a Core ML NeuralNetwork model (\(what)); PoseKit imports NeuralNetwork PoseNet models")
            }
            let description = model.description
            let (inputName, colorSpace) = try imageInput(description)
            var preprocessing = try self.preprocessing(network)
            let layers = network.layers
            guard !layers.isEmpty else { throw ImportError.unsupportedModel(file: file, detail: "the neural network has no layers") }

            var cursor = 0
            var current = inputName
            var tensors: [String: (shape: [Int], values: [Float], dtype: WeightDType)] = [:]
            var strides: [Int] = []
            func store(_ name: String, _ shape: [Int], _ values: [Float], _ dtype: WeightDType) { tensors[name] = (shape, values, dtype) }

            // Block 0: full 3×3 conv on the image.
            var conv = try convBlock(layers, &cursor, &current, kind: .full3x3, inputChannels: 3)
            var weights0 = conv.weights
            if colorSpace == F.colorSpaceBGR {
                // Our input is RGB: swap the first conv's input channels 0 and 2 (HWIO, I axis).
                let cout = conv.outputChannels
                for tap in 0..<9 {
                    for o in 0..<cout { weights0.swapAt((tap * 3 + 0) * cout + o, (tap * 3 + 2) * cout + o) }
                }
                preprocessing.bias.swapAt(0, 2)
            }
            store(PoseNetWeightNames.firstConvWeights, conv.shape, weights0, conv.dtype)
            store(PoseNetWeightNames.firstConvBiases, [conv.outputChannels], conv.biases, conv.dtype)
            strides.append(conv.stride)
            var channels = conv.outputChannels
            var blockChannels = [channels]

            for block in 1..<PoseNetWeightNames.blockCount {
                conv = try convBlock(layers, &cursor, &current, kind: .depthwise3x3, inputChannels: channels)
                store(PoseNetWeightNames.depthwiseWeights(block), conv.shape, conv.weights, conv.dtype)
                store(PoseNetWeightNames.depthwiseBiases(block), [channels], conv.biases, conv.dtype)
                strides.append(conv.stride)
                conv = try convBlock(layers, &cursor, &current, kind: .pointwise1x1, inputChannels: channels)
                store(PoseNetWeightNames.pointwiseWeights(block), conv.shape, conv.weights, conv.dtype)
                store(PoseNetWeightNames.pointwiseBiases(block), [conv.outputChannels], conv.biases, conv.dtype)
                channels = conv.outputChannels
                blockChannels.append(channels)
            }

            // Heads, in any order, all reading the backbone output.
            let backbone = current
            var seenHeads: Set<String> = []
            while cursor < layers.count {
                let headLayer = layers[cursor]
                var end = backbone
                let headConv = try convolution(layers, &cursor, &end, kind: .pointwise1x1, inputChannels: channels, foldBatchnorm: true)
                var names = [headLayer.name, end]
                if layers[cursor - 1].kind == .batchnorm {
                    names.append(layers[cursor - 1].name)
                }
                let head = try headScope(names, layer: headLayer)
                if head == "heatmap_2", cursor < layers.count, layers[cursor].kind == .activation,
                   layers[cursor].inputs == [end] {
                    try expectActivation(layers[cursor], F.activationSigmoid, "sigmoid")
                    cursor += 1
                }
                guard seenHeads.insert(head).inserted else { throw unsupported(headLayer, "second \(head) head") }
                let expected = MobileNetArchitecture.heads.first(where: { $0.name == head })!.channels
                guard headConv.outputChannels == expected else {
                    throw unsupported(headLayer, "\(head) head has \(headConv.outputChannels) output channels, expected \(expected)")
                }
                store(PoseNetWeightNames.headWeights(head), headConv.shape, headConv.weights, headConv.dtype)
                store(PoseNetWeightNames.headBiases(head), [expected], headConv.biases, headConv.dtype)
            }
            let missing = PoseNetWeightNames.heads.filter { !seenHeads.contains($0) }
            guard missing.isEmpty else {
                throw ImportError.unsupportedModel(file: file, detail: "missing PoseNet head(s) \(missing.joined(separator: ", "))")
            }

            let (ordered, _) = try ImportedWeights.canonical(tensors, file: file)
            let outputStride = strides.reduce(1, *)
            guard [8, 16, 32].contains(outputStride) else {
                throw ImportError.unsupportedModel(file: file, detail: "backbone strides \(strides) give output stride \(outputStride); PoseNet uses 8, 16 or 32")
            }
            let manifest = WeightManifest(
                family: PoseNetWeightNames.family,
                widthMultiplier: MobileNetArchitecture.widthMultiplier(firstConvChannels: blockChannels[0]),
                blockStrides: strides,
                outputStride: outputStride,
                outputStrideIsFromSource: true,
                preprocessing: preprocessing,
                source: .init(fileName: fileName(file), sha256: sha256, format: WeightImporter.Format.coreML.rawValue,
                              notes: metadata(description)),
                license: ModelCatalogue.poseNetCoreMLLicense)
            return ImportedWeights(manifest: manifest, tensors: ordered)
        }

        // MARK: description and preprocessing

        func imageInput(_ description: CoreMLModelDescription?) throws -> (name: String, colorSpace: UInt64) {
            guard let input = description?.inputs.first else {
                throw ImportError.unsupportedModel(file: file, detail: "model description has no input")
            }
            guard case .image(let colorSpace) = input.type else {
                throw ImportError.unsupportedModel(file: file, detail: "input '\(input.name)' is not an image")
            }
            guard colorSpace == F.colorSpaceRGB || colorSpace == F.colorSpaceBGR else {
                throw ImportError.unsupportedModel(file: file, detail: "input image '\(input.name)' has color space \(colorSpace); PoseNet needs RGB or BGR")
            }
            return (input.name, colorSpace)
        }

        func preprocessing(_ network: CoreMLNeuralNetwork) throws -> InputScaling {
            let entries = network.preprocessing
            guard let entry = entries.first else { return .init(scale: 1, bias: [0, 0, 0]) }
            guard entries.count == 1, !entry.hasMeanImage, let scaler = entry.scaler else {
                throw ImportError.unsupportedModel(file: file, detail: "image preprocessing other than one channel scaler (mean image?) is not supported")
            }
            let scale = scaler.channelScale
            let bias = [scaler.redBias, scaler.greenBias, scaler.blueBias]
            guard scale.isFinite, bias.allSatisfy(\.isFinite) else {
                throw ImportError.malformed(file: file, detail: "image scaler has a scale or bias that is not finite (\(scale), \(bias))")
            }
            return InputScaling(scale: scale == 0 ? 1 : scale, bias: bias)
        }

        func metadata(_ description: CoreMLModelDescription?) -> [String: String] {
            guard let meta = description?.metadata else { return [:] }
            var notes: [String: String] = [:]
            for (key, text) in [("author", meta.author), ("license", meta.license), ("shortDescription", meta.shortDescription), ("version", meta.version)]
            where !text.isEmpty {
                notes[key] = text
            }
            return notes
        }

        func fileName(_ path: String) -> String { path.split(separator: "/").last.map(String.init) ?? path }

        // MARK: layers

        /// The layer at `cursor`, which must consume `current` and produce one output.
        func next(_ layers: [Layer], _ cursor: inout Int, _ current: String, expecting what: String) throws -> Layer {
            guard cursor < layers.count else {
                throw ImportError.unsupportedModel(file: file, detail: "network ends early: expected \(what) after '\(current)'")
            }
            let layer = layers[cursor]
            guard layer.inputs == [current], layer.outputs.count == 1 else {
                throw unsupported(layer, "\(layer.kindName) reads \(layer.inputs) (expected [\(current)]) — the graph is not the PoseNet MobileNetV1 chain")
            }
            cursor += 1
            return layer
        }

        /// conv → batchnorm → ReLU6, returning the folded conv.
        func convBlock(_ layers: [Layer], _ cursor: inout Int, _ current: inout String, kind: ConvKind, inputChannels: Int) throws -> FoldedConv {
            let conv = try convolution(layers, &cursor, &current, kind: kind, inputChannels: inputChannels, foldBatchnorm: true)
            try relu6(layers, &cursor, &current)
            return conv
        }

        /// A convolution (and, when present, the batchnorm after it, folded in).
        func convolution(_ layers: [Layer], _ cursor: inout Int, _ current: inout String, kind: ConvKind,
                         inputChannels: Int, foldBatchnorm: Bool) throws -> FoldedConv {
            let layer = try next(layers, &cursor, current, expecting: "a convolution")
            guard layer.kind == .convolution else {
                throw unsupported(layer, "\(layer.kindName) is not supported here (expected a convolution); PoseKit imports the PoseNet MobileNetV1 subset: convolution, batchnorm, ReLU6, sigmoid")
            }
            // Every size range-checked by the reader before any arithmetic or allocation here.
            let spec = try CoreMLConvolutionSpec(layer)
            let cout = spec.outputChannels, kernelChannels = spec.kernelChannels, groups = spec.groups
            guard !spec.isDeconvolution, !spec.hasOutputShape else {
                throw unsupported(layer, "deconvolution is not supported")
            }
            guard spec.dilation.allSatisfy({ $0 <= 1 }) else { throw unsupported(layer, "dilated convolution (dilation \(spec.dilation)) is not supported; import a model exported at its native output stride") }
            guard spec.padding == .same(bottomRightHeavy: true) else {
                throw unsupported(layer, "padding must be 'same' (bottom/right heavy, as TensorFlow)")
            }
            let k = kind == .pointwise1x1 ? 1 : 3
            guard spec.kernelSize == [k, k] else { throw unsupported(layer, "kernel \(spec.kernelSize), expected [\(k), \(k)]") }
            let stride = spec.stride
            let s = stride.isEmpty ? 1 : stride[0]
            guard stride.isEmpty || (stride.count == 2 && stride[0] == stride[1] && (s == 1 || s == 2)),
                  kind != .pointwise1x1 || s == 1 else {
                throw unsupported(layer, "stride \(stride) is not supported")
            }
            switch kind {
            case .full3x3, .pointwise1x1:
                guard groups == 1, kernelChannels == inputChannels else {
                    throw unsupported(layer, "convolution with \(kernelChannels) input channels in \(groups) group(s), expected \(inputChannels) in 1")
                }
            case .depthwise3x3:
                guard groups == inputChannels, cout == inputChannels, kernelChannels == 1 else {
                    throw unsupported(layer, "expected a depthwise convolution over \(inputChannels) channels, got \(groups) groups, \(cout) outputs")
                }
            }
            let count = cout * kernelChannels * k * k
            guard spec.weights.count == count else {
                throw unsupported(layer, "weights hold \(spec.weights.count) values, expected \(count)")
            }
            let raw = spec.weights.values
            let dtype: WeightDType = spec.weights.storage == .float16 ? .fp16 : .fp32
            let convBias = spec.bias?.values ?? [Float](repeating: 0, count: cout)
            current = layer.outputs[0]

            // Fold a following batchnorm: y = γ(conv(x) + b − mean)/√(var+ε) + β.
            var scale = [Float](repeating: 1, count: cout)
            var shift = [Float](repeating: 0, count: cout)
            if foldBatchnorm, cursor < layers.count, layers[cursor].kind == .batchnorm {
                let bn = try next(layers, &cursor, current, expecting: "a batchnorm")
                (scale, shift) = try batchnorm(bn, channels: cout)
                current = bn.outputs[0]
            }
            let biases = (0..<cout).map { shift[$0] + scale[$0] * convBias[$0] }

            // OIHW → HWIO (full, pointwise) or [C,1,kH,kW] → [kH,kW,C,1] (depthwise), scaled per output channel.
            var weights = [Float](repeating: 0, count: count)
            let shape: [Int]
            switch kind {
            case .depthwise3x3:
                shape = [k, k, cout, 1]
                for c in 0..<cout { for tap in 0..<(k * k) { weights[tap * cout + c] = raw[c * k * k + tap] * scale[c] } }
            case .full3x3, .pointwise1x1:
                shape = [k, k, kernelChannels, cout]
                for o in 0..<cout {
                    for i in 0..<kernelChannels {
                        for tap in 0..<(k * k) {
                            weights[(tap * kernelChannels + i) * cout + o] = raw[(o * kernelChannels + i) * k * k + tap] * scale[o]
                        }
                    }
                }
            }
            return FoldedConv(weights: weights, shape: shape, biases: biases, stride: s, dtype: dtype, outputChannels: cout)
        }

        /// Batchnorm as a per-channel affine map (`CoreMLBatchnormSpec.folded(in:)`), in float32: as
        /// every PoseNet bundle was made (their bytes depend on it).
        func batchnorm(_ layer: Layer, channels: Int) throws -> (scale: [Float], shift: [Float]) {
            let spec = try CoreMLBatchnormSpec(layer)
            guard spec.channels == channels else {
                throw unsupported(layer, "batchnorm over \(spec.channels) channels follows a convolution with \(channels)")
            }
            return try spec.folded(in: .float32)
        }

        /// Core ML's ReLU6: ReLU → linear(α −1, β 0) → unary threshold(α −6) → linear(α −1, β 0).
        func relu6(_ layers: [Layer], _ cursor: inout Int, _ current: inout String) throws {
            let relu = try next(layers, &cursor, current, expecting: "ReLU6")
            try expectActivation(relu, F.activationReLU, "ReLU (start of the ReLU6 pattern)")
            let negate = try next(layers, &cursor, relu.outputs[0], expecting: "ReLU6")
            try expectNegation(negate)
            let clip = try next(layers, &cursor, negate.outputs[0], expecting: "ReLU6")
            let p = clip.parameters
            guard clip.kind == .unary,
                  try p.uint(F.unaryType) == F.unaryThreshold,
                  try p.float(F.unaryAlpha) == -6,
                  try p.float(F.unaryShift) == 0,
                  try p.float(F.unaryScale, default: 1) == 1 else {
                throw unsupported(clip, "\(clip.kindName) where the ReLU6 pattern needs unary threshold(alpha -6)")
            }
            let restore = try next(layers, &cursor, clip.outputs[0], expecting: "ReLU6")
            try expectNegation(restore)
            current = restore.outputs[0]
        }

        func expectActivation(_ layer: Layer, _ field: Int, _ what: String) throws {
            guard layer.kind == .activation, layer.parameters.all.count == 1,
                  layer.parameters.all[0].number == field else {
                throw unsupported(layer, "\(layer.kindName) \(activationName(layer)) where \(what) is expected; PoseKit supports only the PoseNet layer subset")
            }
        }

        func expectNegation(_ layer: Layer) throws {
            try expectActivation(layer, F.activationLinear, "linear(alpha -1) of the ReLU6 pattern")
            let linear = try layer.parameters.message(F.activationLinear)!
            guard try linear.float(F.linearAlpha) == -1, try linear.float(F.linearBeta) == 0 else {
                throw unsupported(layer, "linear activation is not the ReLU6 pattern's negation (alpha -1, beta 0)")
            }
        }

        func activationName(_ layer: Layer) -> String {
            guard layer.kind == .activation, let kind = layer.parameters.all.first?.number else { return "" }
            let names = [5: "linear", 10: "ReLU", 15: "leakyReLU", 20: "thresholdedReLU", 25: "PReLU", 30: "tanh",
                         31: "scaledTanh", 40: "sigmoid", 41: "sigmoidHard", 50: "ELU", 60: "softsign", 70: "softplus"]
            return "(\(names[kind] ?? "kind \(kind)"))"
        }

        /// Which head a chain is, from its layer and output names (Apple's export names the
        /// batchnorm `heatmap_2:0` / `offset_2:0` / … and the outputs `heatmap`, `offsets`, …).
        func headScope(_ names: [String], layer: Layer) throws -> String {
            let text = String(names.joined(separator: " ").lowercased().filter { $0 != "_" })
            if text.contains("heatmap") { return "heatmap_2" }
            if text.contains("displacementfwd") { return "displacement_fwd_2" }
            if text.contains("displacementbwd") { return "displacement_bwd_2" }
            if text.contains("offset") { return "offset_2" }
            throw unsupported(layer, "cannot tell which PoseNet head this is from the names \(names)")
        }
    }
}

extension ImportError {
    /// The Core ML reader's error, naming `file`: a layer's problem is `unsupportedLayer`, the rest `malformed`.
    init(_ error: CoreMLFormatError, file: String) {
        if let layer = error.layer, !error.isMalformed {
            self = .unsupportedLayer(file: file, layer: layer, detail: error.detail)
        } else {
            self = .malformed(file: file, detail: error.description)
        }
    }
}
