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
/// Protobuf field numbers are those of coremltools' public `Model.proto` / `NeuralNetwork.proto`.
enum CoreMLImporter {
    // Model.proto
    static let modelSpecificationVersion = 1, modelDescription = 2, modelNeuralNetwork = 500
    // ModelDescription / FeatureDescription / FeatureType / ImageFeatureType / Metadata
    static let descriptionInput = 1, descriptionMetadata = 100
    static let featureName = 1, featureType = 3, featureTypeImage = 4
    static let imageColorSpace = 3, colorSpaceGray = 10, colorSpaceRGB = 20, colorSpaceBGR = 30
    static let metadataShortDescription = 1, metadataVersion = 2, metadataAuthor = 3, metadataLicense = 4
    // NeuralNetwork.proto
    static let networkLayers = 1, networkPreprocessing = 2
    static let preprocessingFeatureName = 1, preprocessingScaler = 10, preprocessingMeanImage = 11
    static let scalerChannelScale = 10, scalerBlueBias = 20, scalerGreenBias = 21, scalerRedBias = 22
    static let layerName = 1, layerInput = 2, layerOutput = 3
    static let layerConvolution = 100, layerActivation = 130, layerBatchnorm = 160, layerUnary = 220
    static let convOutputChannels = 1, convKernelChannels = 2, convGroups = 10, convKernelSize = 20, convStride = 30
    static let convDilation = 40, convValidPadding = 50, convSamePadding = 51, convIsDeconvolution = 60
    static let convHasBias = 70, convWeights = 90, convBias = 91, convOutputShape = 100
    static let samePaddingAsymmetry = 1 // 0 = BOTTOM_RIGHT_HEAVY (TensorFlow "SAME")
    static let weightFloat = 1, weightFloat16 = 2, weightRaw = 30, weightInt8Raw = 31, weightQuantization = 40
    static let bnChannels = 1, bnComputeMeanVar = 5, bnInstanceNorm = 6, bnEpsilon = 10
    static let bnGamma = 15, bnBeta = 16, bnMean = 17, bnVariance = 18
    static let activationLinear = 5, activationReLU = 10, activationSigmoid = 40
    static let linearAlpha = 1, linearBeta = 2
    /// Largest channel count accepted (PoseNet's widest layer has 1024).
    static let maxChannels = 1 << 16
    static let unaryType = 1, unaryAlpha = 2, unaryShift = 4, unaryScale = 5, unaryThreshold: UInt64 = 7

    /// Reads the model in `bytes` (the contents of `file`).
    static func read(_ bytes: [UInt8], file: String) throws -> ImportedWeights {
        do {
            return try Parser(file: file, root: ProtobufMessage(buffer: bytes)).run(sha256: SHA256.hexDigest(bytes))
        } catch let error as ProtobufError {
            throw ImportError.malformed(file: file, detail: "\(error)")
        }
    }

    /// One NeuralNetworkLayer, decoded just enough to match the PoseNet pattern.
    struct Layer {
        let name: String
        let inputs: [String]
        let outputs: [String]
        let typeField: Int
        let params: ProtobufFields

        var typeName: String { CoreMLLayerKindNames.name(typeField) }
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

    struct Parser {
        let file: String
        let root: ProtobufMessage

        func unsupported(_ layer: Layer, _ detail: String) -> ImportError {
            ImportError.unsupportedLayer(file: file, layer: layer.name, detail: detail)
        }

        func run(sha256: String) throws -> ImportedWeights {
            let model = try ProtobufFields(root)
            guard let network = try model.message(CoreMLImporter.modelNeuralNetwork) else {
                let kinds = model.all.map(\.number).filter { $0 >= 200 }
                let what = kinds.first.map { "model type field \($0)" } ?? "no model body"
                throw ImportError.unsupportedModel(file: file, detail: "not a Core ML NeuralNetwork model (\(what)); PoseKit imports NeuralNetwork PoseNet models")
            }
            let description = try model.message(CoreMLImporter.modelDescription)
            let (inputName, colorSpace) = try imageInput(description)
            var preprocessing = try self.preprocessing(network)
            let layers = try network.messages(CoreMLImporter.networkLayers).map(decodeLayer)
            guard !layers.isEmpty else { throw ImportError.unsupportedModel(file: file, detail: "the neural network has no layers") }

            var cursor = 0
            var current = inputName
            var tensors: [String: (shape: [Int], values: [Float], dtype: WeightDType)] = [:]
            var strides: [Int] = []
            func store(_ name: String, _ shape: [Int], _ values: [Float], _ dtype: WeightDType) { tensors[name] = (shape, values, dtype) }

            // Block 0: full 3×3 conv on the image.
            var conv = try convBlock(layers, &cursor, &current, kind: .full3x3, inputChannels: 3)
            var weights0 = conv.weights
            if colorSpace == CoreMLImporter.colorSpaceBGR {
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
                if layers[cursor - 1].typeField == CoreMLImporter.layerBatchnorm {
                    names.append(layers[cursor - 1].name)
                }
                let head = try headScope(names, layer: headLayer)
                if head == "heatmap_2", cursor < layers.count, layers[cursor].typeField == CoreMLImporter.layerActivation,
                   layers[cursor].inputs == [end] {
                    try expectActivation(layers[cursor], CoreMLImporter.activationSigmoid, "sigmoid")
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
                              notes: try metadata(description)),
                license: WeightImporter.posenetLicense(convertedBy: "Converted to Core ML by Apple (coremltools) from the TF.js PoseNet checkpoint."))
            return ImportedWeights(manifest: manifest, tensors: ordered)
        }

        // MARK: description and preprocessing

        func imageInput(_ description: ProtobufFields?) throws -> (name: String, colorSpace: Int) {
            guard let description, let input = try description.messages(CoreMLImporter.descriptionInput).first else {
                throw ImportError.unsupportedModel(file: file, detail: "model description has no input")
            }
            let name = try input.string(CoreMLImporter.featureName)
            guard let type = try input.message(CoreMLImporter.featureType),
                  let image = try type.message(CoreMLImporter.featureTypeImage) else {
                throw ImportError.unsupportedModel(file: file, detail: "input '\(name)' is not an image")
            }
            let colorSpace = Int(clamping: try image.uint(CoreMLImporter.imageColorSpace))
            guard colorSpace == CoreMLImporter.colorSpaceRGB || colorSpace == CoreMLImporter.colorSpaceBGR else {
                throw ImportError.unsupportedModel(file: file, detail: "input image '\(name)' has color space \(colorSpace); PoseNet needs RGB or BGR")
            }
            return (name, colorSpace)
        }

        func preprocessing(_ network: ProtobufFields) throws -> InputScaling {
            let entries = try network.messages(CoreMLImporter.networkPreprocessing)
            guard let entry = entries.first else { return .init(scale: 1, bias: [0, 0, 0]) }
            guard entries.count == 1, !entry.has(CoreMLImporter.preprocessingMeanImage),
                  let scaler = try entry.message(CoreMLImporter.preprocessingScaler) else {
                throw ImportError.unsupportedModel(file: file, detail: "image preprocessing other than one channel scaler (mean image?) is not supported")
            }
            let scale = try scaler.float(CoreMLImporter.scalerChannelScale)
            let bias = try [CoreMLImporter.scalerRedBias, CoreMLImporter.scalerGreenBias, CoreMLImporter.scalerBlueBias]
                .map { try scaler.float($0) }
            guard scale.isFinite, bias.allSatisfy(\.isFinite) else {
                throw ImportError.malformed(file: file, detail: "image scaler has a scale or bias that is not finite (\(scale), \(bias))")
            }
            return InputScaling(scale: scale == 0 ? 1 : scale, bias: bias)
        }

        func metadata(_ description: ProtobufFields?) throws -> [String: String] {
            guard let meta = try description?.message(CoreMLImporter.descriptionMetadata) else { return [:] }
            var notes: [String: String] = [:]
            for (key, field) in [("author", CoreMLImporter.metadataAuthor), ("license", CoreMLImporter.metadataLicense),
                                 ("shortDescription", CoreMLImporter.metadataShortDescription), ("version", CoreMLImporter.metadataVersion)] {
                let text = try meta.string(field)
                if !text.isEmpty { notes[key] = text }
            }
            return notes
        }

        func fileName(_ path: String) -> String { path.split(separator: "/").last.map(String.init) ?? path }

        // MARK: layers

        func decodeLayer(_ fields: ProtobufFields) throws -> Layer {
            let name = try fields.string(CoreMLImporter.layerName)
            let kinds = fields.all.filter { $0.number >= 100 }
            guard kinds.count == 1, case .bytes(let range) = kinds[0].value else {
                throw ImportError.malformed(file: file, detail: "layer '\(name)' does not hold exactly one layer type")
            }
            return Layer(name: name, inputs: try fields.strings(CoreMLImporter.layerInput),
                         outputs: try fields.strings(CoreMLImporter.layerOutput), typeField: kinds[0].number,
                         params: try ProtobufFields(fields.message.message(range)))
        }

        /// The layer at `cursor`, which must consume `current` and produce one output.
        func next(_ layers: [Layer], _ cursor: inout Int, _ current: String, expecting what: String) throws -> Layer {
            guard cursor < layers.count else {
                throw ImportError.unsupportedModel(file: file, detail: "network ends early: expected \(what) after '\(current)'")
            }
            let layer = layers[cursor]
            guard layer.inputs == [current], layer.outputs.count == 1 else {
                throw unsupported(layer, "\(layer.typeName) reads \(layer.inputs) (expected [\(current)]) — the graph is not the PoseNet MobileNetV1 chain")
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
            guard layer.typeField == CoreMLImporter.layerConvolution else {
                throw unsupported(layer, "\(layer.typeName) is not supported here (expected a convolution); PoseKit imports the PoseNet MobileNetV1 subset: convolution, batchnorm, ReLU6, sigmoid")
            }
            let p = layer.params
            let cout = Int(clamping: try p.uint(CoreMLImporter.convOutputChannels))
            let kernelChannels = Int(clamping: try p.uint(CoreMLImporter.convKernelChannels))
            let groups = max(1, Int(clamping: try p.uint(CoreMLImporter.convGroups)))
            let kernel = try p.uints(CoreMLImporter.convKernelSize).map { Int(clamping: $0) }
            let stride = try p.uints(CoreMLImporter.convStride).map { Int(clamping: $0) }
            let dilation = try p.uints(CoreMLImporter.convDilation)
            // Bound sizes before any arithmetic or allocation: a corrupt file must not trap or balloon.
            guard (1...CoreMLImporter.maxChannels).contains(cout), (1...CoreMLImporter.maxChannels).contains(groups) else {
                throw unsupported(layer, "convolution with \(cout) outputs in \(groups) groups is outside what PoseNet uses")
            }
            guard try !p.bool(CoreMLImporter.convIsDeconvolution), try p.uints(CoreMLImporter.convOutputShape).isEmpty else {
                throw unsupported(layer, "deconvolution is not supported")
            }
            guard dilation.allSatisfy({ $0 <= 1 }) else { throw unsupported(layer, "dilated convolution (dilation \(dilation)) is not supported; import a model exported at its native output stride") }
            guard let same = try p.message(CoreMLImporter.convSamePadding), try same.uint(CoreMLImporter.samePaddingAsymmetry) == 0 else {
                throw unsupported(layer, "padding must be 'same' (bottom/right heavy, as TensorFlow)")
            }
            let k = kind == .pointwise1x1 ? 1 : 3
            guard kernel == [k, k] else { throw unsupported(layer, "kernel \(kernel), expected [\(k), \(k)]") }
            let s = stride.isEmpty ? 1 : stride[0]
            guard stride.isEmpty || (stride.count == 2 && stride[0] == stride[1] && (s == 1 || s == 2)),
                  kind != .pointwise1x1 || s == 1 else {
                throw unsupported(layer, "stride \(stride) is not supported")
            }
            switch kind {
            case .full3x3, .pointwise1x1:
                guard groups == 1, kernelChannels == inputChannels, cout > 0 else {
                    throw unsupported(layer, "convolution with \(kernelChannels) input channels in \(groups) group(s), expected \(inputChannels) in 1")
                }
            case .depthwise3x3:
                guard groups == inputChannels, cout == inputChannels, kernelChannels == 1 else {
                    throw unsupported(layer, "expected a depthwise convolution over \(inputChannels) channels, got \(groups) groups, \(cout) outputs")
                }
            }
            let count = cout * kernelChannels * k * k
            guard let weightParams = try p.message(CoreMLImporter.convWeights) else { throw unsupported(layer, "has no weights") }
            let (raw, dtype) = try weightValues(weightParams, count: count, layer: layer, what: "weights")
            var convBias = [Float](repeating: 0, count: cout)
            if try p.bool(CoreMLImporter.convHasBias) {
                guard let b = try p.message(CoreMLImporter.convBias) else { throw unsupported(layer, "hasBias set but no bias") }
                convBias = try weightValues(b, count: cout, layer: layer, what: "bias").values
            }
            current = layer.outputs[0]

            // Fold a following batchnorm: y = γ(conv(x) + b − mean)/√(var+ε) + β.
            var scale = [Float](repeating: 1, count: cout)
            var shift = [Float](repeating: 0, count: cout)
            if foldBatchnorm, cursor < layers.count, layers[cursor].typeField == CoreMLImporter.layerBatchnorm {
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

        /// Batchnorm as a per-channel affine map: `scale = γ/√(var+ε)`, `shift = β − mean·scale`.
        func batchnorm(_ layer: Layer, channels: Int) throws -> (scale: [Float], shift: [Float]) {
            let p = layer.params
            guard Int(clamping: try p.uint(CoreMLImporter.bnChannels)) == channels else {
                throw unsupported(layer, "batchnorm over \(try p.uint(CoreMLImporter.bnChannels)) channels follows a convolution with \(channels)")
            }
            guard try !p.bool(CoreMLImporter.bnComputeMeanVar), try !p.bool(CoreMLImporter.bnInstanceNorm) else {
                throw unsupported(layer, "batchnorm that computes mean/variance at run time cannot be folded")
            }
            let epsilon = try p.float(CoreMLImporter.bnEpsilon)
            func vector(_ field: Int, _ what: String) throws -> [Float] {
                guard let w = try p.message(field) else { throw unsupported(layer, "batchnorm has no \(what)") }
                return try weightValues(w, count: channels, layer: layer, what: what).values
            }
            let gamma = try vector(CoreMLImporter.bnGamma, "gamma"), beta = try vector(CoreMLImporter.bnBeta, "beta")
            let mean = try vector(CoreMLImporter.bnMean, "mean"), variance = try vector(CoreMLImporter.bnVariance, "variance")
            var scale = [Float](repeating: 0, count: channels), shift = scale
            for c in 0..<channels {
                guard variance[c] + epsilon > 0 else { throw unsupported(layer, "batchnorm variance + epsilon ≤ 0 in channel \(c)") }
                scale[c] = gamma[c] / (variance[c] + epsilon).squareRoot()
                shift[c] = beta[c] - mean[c] * scale[c]
            }
            return (scale, shift)
        }

        /// A WeightParams message as `count` floats: packed fp32 or raw fp16 only.
        func weightValues(_ w: ProtobufFields, count: Int, layer: Layer, what: String) throws -> (values: [Float], dtype: WeightDType) {
            if w.has(CoreMLImporter.weightQuantization) || w.has(CoreMLImporter.weightRaw) || w.has(CoreMLImporter.weightInt8Raw) {
                throw unsupported(layer, "quantised or raw \(what) are not supported (fp32 or fp16 only)")
            }
            if let half = try w.bytes(CoreMLImporter.weightFloat16) {
                guard half.count == count * 2 else {
                    throw unsupported(layer, "\(what) hold \(half.count / 2) fp16 values, expected \(count)")
                }
                var values = [Float](repeating: 0, count: count)
                w.message.buffer.withUnsafeBytes { raw in
                    values.withUnsafeMutableBufferPointer { HalfPrecision.convert(raw.baseAddress! + half.lowerBound, count: count, into: $0.baseAddress!) }
                }
                return (values, .fp16)
            }
            let floats = try w.floats(CoreMLImporter.weightFloat)
            guard floats.count == count else { throw unsupported(layer, "\(what) hold \(floats.count) values, expected \(count)") }
            return (floats, .fp32)
        }

        /// Core ML's ReLU6: ReLU → linear(α −1, β 0) → unary threshold(α −6) → linear(α −1, β 0).
        func relu6(_ layers: [Layer], _ cursor: inout Int, _ current: inout String) throws {
            let relu = try next(layers, &cursor, current, expecting: "ReLU6")
            try expectActivation(relu, CoreMLImporter.activationReLU, "ReLU (start of the ReLU6 pattern)")
            let negate = try next(layers, &cursor, relu.outputs[0], expecting: "ReLU6")
            try expectNegation(negate)
            let clip = try next(layers, &cursor, negate.outputs[0], expecting: "ReLU6")
            guard clip.typeField == CoreMLImporter.layerUnary,
                  try clip.params.uint(CoreMLImporter.unaryType) == CoreMLImporter.unaryThreshold,
                  try clip.params.float(CoreMLImporter.unaryAlpha) == -6,
                  try clip.params.float(CoreMLImporter.unaryShift) == 0,
                  try clip.params.float(CoreMLImporter.unaryScale, default: 1) == 1 else {
                throw unsupported(clip, "\(clip.typeName) where the ReLU6 pattern needs unary threshold(alpha -6)")
            }
            let restore = try next(layers, &cursor, clip.outputs[0], expecting: "ReLU6")
            try expectNegation(restore)
            current = restore.outputs[0]
        }

        func expectActivation(_ layer: Layer, _ field: Int, _ what: String) throws {
            guard layer.typeField == CoreMLImporter.layerActivation, layer.params.all.count == 1,
                  layer.params.all[0].number == field else {
                throw unsupported(layer, "\(layer.typeName) \(activationName(layer)) where \(what) is expected; PoseKit supports only the PoseNet layer subset")
            }
        }

        func expectNegation(_ layer: Layer) throws {
            try expectActivation(layer, CoreMLImporter.activationLinear, "linear(alpha -1) of the ReLU6 pattern")
            let linear = try layer.params.message(CoreMLImporter.activationLinear)!
            guard try linear.float(CoreMLImporter.linearAlpha) == -1, try linear.float(CoreMLImporter.linearBeta) == 0 else {
                throw unsupported(layer, "linear activation is not the ReLU6 pattern's negation (alpha -1, beta 0)")
            }
        }

        func activationName(_ layer: Layer) -> String {
            guard layer.typeField == CoreMLImporter.layerActivation, let kind = layer.params.all.first?.number else { return "" }
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
