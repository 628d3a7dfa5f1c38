import Protobuf

/// Decodes one `NeuralNetworkLayer` message into a ``CoreMLLayer``, checking every parameter
/// this runtime would otherwise ignore: a layer kind or a setting it does not run (grouped or
/// dilated convolution, deconvolution, SAME padding, quantized weights, a non-ReLU activation,
/// ...) is refused with ``CoreMLModelError/unsupportedLayer(file:layer:detail:)``.
struct CoreMLLayerReader {
    typealias F = CoreMLField
    let file: String

    func read(_ layer: ProtobufFields) throws -> CoreMLLayer {
        let name = try layer.string(F.layerName)
        let inputs = try layer.strings(F.layerInput), outputs = try layer.strings(F.layerOutput)
        // The `oneof layer` is the one field at number ≥ 100 (below are name, blobs, tensor ranks, isUpdatable).
        let kinds = layer.all.map(\.number).filter { $0 >= 100 }
        guard kinds.count == 1, let field = kinds.first else {
            throw CoreMLModelError.unsupportedLayer(file: file, layer: name, detail: kinds.isEmpty ? "layer has no kind" : "layer has \(kinds.count) kinds")
        }
        let kindName = F.kindName(field)
        func unsupported(_ detail: String) -> CoreMLModelError { .unsupportedLayer(file: file, layer: name, detail: detail) }
        guard let kind = F.Kind(rawValue: field) else {
            throw unsupported("unsupported layer kind '\(kindName)'; PoseKit runs \(F.Kind.allCases.map { F.kindName($0.rawValue) }.joined(separator: ", "))")
        }
        guard let params = try layer.message(field) else { throw unsupported("\(kindName) has no parameters") }
        let operation = try decode(kind, params, inputs: inputs, outputs: outputs, unsupported: unsupported)
        return CoreMLLayer(name: name, inputs: inputs, outputs: outputs, operation: operation, kind: kindName)
    }

    // swiftlint:disable:next cyclomatic_complexity function_body_length
    private func decode(_ kind: F.Kind, _ p: ProtobufFields, inputs: [String], outputs: [String],
                        unsupported: (String) -> CoreMLModelError) throws -> CoreMLOperation {
        func inputCount(_ range: ClosedRange<Int>) throws {
            guard range.contains(inputs.count) else { throw unsupported("\(inputs.count) inputs, expected \(range.lowerBound == range.upperBound ? "\(range.lowerBound)" : "\(range)")") }
        }
        if kind != .splitND { guard outputs.count == 1 else { throw unsupported("\(outputs.count) outputs, expected 1") } }
        switch kind {
        case .convolution:
            try inputCount(1...1)
            return .convolution(try convolution(p, unsupported))
        case .pooling:
            try inputCount(1...1)
            return .pooling(try pooling(p, unsupported))
        case .activation:
            try inputCount(1...1)
            let functions = p.all.map(\.number)
            guard functions == [F.activationReLU] else {
                throw unsupported("unsupported activation (ActivationParams field \(functions.map(String.init).joined(separator: ", "))); PoseKit runs ReLU")
            }
            return .relu
        case .batchnorm:
            try inputCount(1...1)
            return try batchnorm(p, unsupported)
        case .softmax:
            try inputCount(1...1)
            return .softmax
        case .softmaxND:
            try inputCount(1...1)
            return .softmaxND(axis: try axis(p, F.ndAxis, "softmaxND axis", unsupported))
        case .padding:
            try inputCount(1...1)
            guard !p.has(F.paddingReflection), !p.has(F.paddingReplication) else { throw unsupported("reflection / replication padding is not supported (constant only)") }
            let value = try p.message(F.paddingConstant)?.float(F.paddingConstantValue) ?? 0
            guard value.isFinite else { throw unsupported("padding value \(value) is not finite") }
            let (top, bottom, left, right) = try borders(p.message(F.paddingAmounts), unsupported)
            return .padding(top: top, bottom: bottom, left: left, right: right, value: value)
        case .add:
            try inputCount(1...16)
            let alpha = try p.float(F.addAlpha)
            guard alpha.isFinite else { throw unsupported("add alpha \(alpha) is not finite") }
            return .add(alpha: alpha)
        case .concat:
            try inputCount(1...64)
            guard try !p.bool(F.concatSequence) else { throw unsupported("sequence concat is not supported") }
            return .concat
        case .addBroadcastable:
            try inputCount(2...2)
            return .addBroadcastable
        case .gather:
            try inputCount(2...2)
            return .gather(axis: try axis(p, F.ndAxis, "gather axis", unsupported))
        case .splitND:
            try inputCount(1...1)
            let sizes = try integers(p, F.splitSizes, in: 1...Self.maxAxisSize, "splitND size", unsupported)
            let count = try integer(p, F.splitNumSplits, in: 0...Self.maxAxisSize, "splitND numSplits", unsupported)
            guard outputs.count == (sizes.isEmpty ? count : sizes.count), !outputs.isEmpty else {
                throw unsupported("splitND into \(sizes.isEmpty ? count : sizes.count) parts writes \(outputs.count) outputs")
            }
            return .splitND(axis: try axis(p, F.ndAxis, "splitND axis", unsupported), count: outputs.count, sizes: sizes)
        case .concatND:
            try inputCount(1...64)
            guard p.all.allSatisfy({ $0.number == F.ndAxis }) else { throw unsupported("concatND interleave is not supported") }
            return .concatND(axis: try axis(p, F.ndAxis, "concatND axis", unsupported))
        case .transpose:
            try inputCount(1...1)
            return .transpose(axes: try integers(p, F.ndAxis, in: 0...Self.maxRank - 1, "transpose axis", unsupported))
        case .getShape:
            try inputCount(1...1)
            return .getShape
        case .loadConstantND:
            try inputCount(0...0)
            let shape = try integers(p, F.constantShape, in: 1...Self.maxAxisSize, "loadConstantND shape size", unsupported)
            let values = try weights(p.message(F.constantData), unsupported, what: "constant")
            guard shape.count <= Self.maxRank, CoreMLArray.checkedCount(shape) == values.count else {
                throw unsupported("loadConstantND shape \(shape) does not hold the \(values.count) values of its data")
            }
            return .loadConstant(CoreMLArray(shape: shape, values: values))
        case .squeeze:
            try inputCount(1...1)
            return .squeeze(axes: try axes(p, F.ndAxis, "squeeze axes", unsupported), all: try p.bool(F.squeezeAll))
        case .expandDims:
            try inputCount(1...1)
            return .expandDims(axes: try axes(p, F.ndAxis, "expandDims axes", unsupported))
        case .reshapeStatic:
            try inputCount(1...1)
            let shape = try p.ints(F.ndAxis)
            guard shape.count <= Self.maxRank, shape.allSatisfy({ (-1...Self.maxAxisSize).contains($0) }) else {
                throw unsupported("reshapeStatic target shape \(shape) is not at most \(Self.maxRank) sizes in -1...\(Self.maxAxisSize)")
            }
            return .reshapeStatic(shape: shape)
        case .reshapeDynamic:
            try inputCount(2...2)
            return .reshapeDynamic
        }
    }

    private func convolution(_ p: ProtobufFields, _ unsupported: (String) -> CoreMLModelError) throws -> CoreMLConvolution {
        let cout = try integer(p, F.convOutputChannels, in: 1...Self.maxChannels, "convolution outputChannels", unsupported)
        let cin = try integer(p, F.convKernelChannels, in: 1...Self.maxChannels, "convolution kernelChannels", unsupported)
        // nGroups 0 is proto3's "absent": one group.
        let groups = max(try integer(p, F.convGroups, in: 0...Self.maxChannels, "convolution nGroups", unsupported), 1)
        guard groups == 1 else { throw unsupported("grouped convolution (groups \(groups)) is not supported") }
        guard try !p.bool(F.convIsDeconvolution) else { throw unsupported("deconvolution is not supported") }
        guard !p.has(F.convSamePadding) else { throw unsupported("SAME convolution padding is not supported (valid with explicit amounts only)") }
        let kernel = try pair(p.uints(F.convKernelSize), default: 3, "kernelSize", unsupported)
        let stride = try pair(p.uints(F.convStride), default: 1, "stride", unsupported)
        let dilation = try pair(p.uints(F.convDilation), default: 1, "dilationFactor", unsupported)
        guard dilation == (1, 1) else { throw unsupported("dilated convolution (\(dilation.0)x\(dilation.1)) is not supported") }
        let padding = try borders(p.message(F.convValidPadding)?.message(F.validPaddingAmounts), unsupported)
        let weights = try self.weights(p.message(F.convWeights), unsupported, what: "convolution weights")
        guard weights.count == cout * cin * kernel.0 * kernel.1 else {
            throw unsupported("convolution weights hold \(weights.count) values, [\(cout), \(cin), \(kernel.0), \(kernel.1)] needs \(cout * cin * kernel.0 * kernel.1)")
        }
        var bias: [Float]?
        if try p.bool(F.convHasBias) {
            let b = try self.weights(p.message(F.convBias), unsupported, what: "convolution bias")
            guard b.count == cout else { throw unsupported("convolution bias holds \(b.count) values for \(cout) channels") }
            bias = b
        }
        return try CoreMLConvolution(inputChannels: cin, outputChannels: cout, kernel: kernel, stride: stride,
                                     padding: padding, oihw: weights, bias: bias)
    }

    private func pooling(_ p: ProtobufFields, _ unsupported: (String) -> CoreMLModelError) throws -> CoreMLPooling {
        let type = try p.uint(F.poolingType)
        guard type == F.poolingMax || type == F.poolingAverage else { throw unsupported("L2 pooling is not supported") }
        guard !p.has(F.poolingSame), !p.has(F.poolingIncludeLastPixel) else {
            throw unsupported("pooling padding other than valid is not supported")
        }
        let kernel = try pair(p.uints(F.poolingKernelSize), default: 3, "kernelSize", unsupported)
        let stride = try pair(p.uints(F.poolingStride), default: 1, "stride", unsupported)
        let (top, bottom, left, right) = try borders(p.message(F.poolingValid)?.message(F.validPaddingAmounts), unsupported)
        return CoreMLPooling(average: type == F.poolingAverage, global: try p.bool(F.poolingGlobal),
                             kernelHeight: kernel.0, kernelWidth: kernel.1, strideY: stride.0, strideX: stride.1,
                             padTop: top, padBottom: bottom, padLeft: left, padRight: right,
                             excludePadding: try p.bool(F.poolingAvgExcludePadding))
    }

    private func batchnorm(_ p: ProtobufFields, _ unsupported: (String) -> CoreMLModelError) throws -> CoreMLOperation {
        guard try !p.bool(F.bnComputeMeanVar), try !p.bool(F.bnInstanceNormalization) else {
            throw unsupported("batchnorm computing its own mean and variance (instance normalization) is not supported")
        }
        let channels = try integer(p, F.bnChannels, in: 1...Self.maxChannels, "batchnorm channels", unsupported)
        let epsilon = try p.float(F.bnEpsilon)
        var columns: [[Float]] = []
        for (field, what) in [(F.bnGamma, "gamma"), (F.bnBeta, "beta"), (F.bnMean, "mean"), (F.bnVariance, "variance")] {
            let values = try weights(p.message(field), unsupported, what: "batchnorm \(what)")
            guard values.count == channels else { throw unsupported("batchnorm \(what) holds \(values.count) values for \(channels) channels") }
            columns.append(values)
        }
        guard epsilon.isFinite, epsilon >= 0 else { throw unsupported("batchnorm epsilon \(epsilon) is not a finite value ≥ 0") }
        if let bad = columns[3].indices.first(where: { columns[3][$0] < 0 || Double(columns[3][$0]) + Double(epsilon) <= 0 }) {
            throw unsupported("batchnorm variance \(columns[3][bad]) of channel \(bad) (epsilon \(epsilon)) gives no positive σ² + ε")
        }
        // Folded in double so the float32 result is as close as one rounding to γ(x − μ)/√(σ² + ε) + β.
        var scale = [Float](), shift = [Float]()
        for c in 0..<channels {
            let s = Double(columns[0][c]) / (Double(columns[3][c]) + Double(epsilon)).squareRoot()
            scale.append(Float(s))
            shift.append(Float(Double(columns[1][c]) - Double(columns[2][c]) * s))
        }
        if let bad = scale.indices.first(where: { !scale[$0].isFinite || !shift[$0].isFinite }) {
            throw unsupported("batchnorm channel \(bad) folds to scale \(scale[bad]), shift \(shift[bad]): not finite in float32")
        }
        return .batchnorm(scale: scale, shift: shift)
    }

    /// Channel counts a layer may declare (as the PoseNet importer's limit).
    static let maxChannels = 1 << 16
    /// Any one axis of a constant or a split.
    static let maxAxisSize = 1 << 28
    /// Blob ranks: Core ML's N-D layers go to rank 5; a little room beyond.
    static let maxRank = 8

    /// The varint in `field` as an `Int` in `allowed` (absent: 0), or the layer's one-line error
    /// naming `what`: every integer read from the file passes here, never through `Int(_:)`.
    private func integer(_ p: ProtobufFields, _ field: Int, in allowed: ClosedRange<Int>, _ what: String,
                         _ unsupported: (String) -> CoreMLModelError) throws -> Int {
        let value = try p.uint(field)
        guard let result = ProtobufFields.checked(value, in: allowed) else {
            throw unsupported("\(what) \(value) is outside \(allowed.lowerBound)...\(allowed.upperBound)")
        }
        return result
    }

    /// Every integer of repeated `field`, each in `allowed` (as ``integer(_:_:in:_:_:)``).
    private func integers(_ p: ProtobufFields, _ field: Int, in allowed: ClosedRange<Int>, _ what: String,
                          _ unsupported: (String) -> CoreMLModelError) throws -> [Int] {
        try p.uints(field).map { value in
            guard let result = ProtobufFields.checked(value, in: allowed) else {
                throw unsupported("\(what) \(value) is outside \(allowed.lowerBound)...\(allowed.upperBound)")
            }
            return result
        }
    }

    /// A signed `int64` axis list (negative counts from the end), each within ±`maxRank`.
    private func axes(_ p: ProtobufFields, _ field: Int, _ what: String, _ unsupported: (String) -> CoreMLModelError) throws -> [Int] {
        let values = try p.ints(field)
        guard values.allSatisfy({ (-Self.maxRank...Self.maxRank).contains($0) }) else {
            throw unsupported("\(what) \(values) outside -\(Self.maxRank)...\(Self.maxRank)")
        }
        return values
    }

    /// A signed `int64` axis (negative counts from the end) within ±`maxRank`.
    private func axis(_ p: ProtobufFields, _ field: Int, _ what: String, _ unsupported: (String) -> CoreMLModelError) throws -> Int {
        let value = try p.int(field)
        guard (-Self.maxRank...Self.maxRank).contains(value) else {
            throw unsupported("\(what) \(value) is outside -\(Self.maxRank)...\(Self.maxRank)")
        }
        return value
    }

    /// A `repeated uint64` [H, W] pair (absent: `default` for both).
    private func pair(_ values: [UInt64], default fallback: Int, _ what: String, _ unsupported: (String) -> CoreMLModelError) throws -> (Int, Int) {
        if values.isEmpty { return (fallback, fallback) }
        guard values.count == 2, values.allSatisfy({ (1...4096).contains($0) }) else { throw unsupported("\(what) \(values) is not two sizes in 1...4096") }
        return (Int(values[0]), Int(values[1]))
    }

    /// A BorderAmounts message: [H edges, W edges] → (top, bottom, left, right); absent: no padding.
    private func borders(_ amounts: ProtobufFields?, _ unsupported: (String) -> CoreMLModelError) throws -> (Int, Int, Int, Int) {
        guard let amounts else { return (0, 0, 0, 0) }
        let edges = try amounts.messages(F.borderAmounts)
        if edges.isEmpty { return (0, 0, 0, 0) }
        guard edges.count == 2 else { throw unsupported("padding amounts for \(edges.count) axes, expected 2 ([H, W])") }
        let sizes = try edges.flatMap { [try $0.uint(F.edgeStart), try $0.uint(F.edgeEnd)] }
        guard sizes.allSatisfy({ $0 <= 4096 }) else { throw unsupported("padding amounts \(sizes) are too large") }
        return (Int(sizes[0]), Int(sizes[1]), Int(sizes[2]), Int(sizes[3]))
    }

    /// A WeightParams message as float32 values (fp16 and quantized weights are refused).
    private func weights(_ message: ProtobufFields?, _ unsupported: (String) -> CoreMLModelError, what: String) throws -> [Float] {
        guard let message else { throw unsupported("\(what) missing") }
        for (field, kind) in [(F.weightFloat16, "float16"), (F.weightRaw, "raw"), (F.weightInt8Raw, "int8"), (F.weightQuantization, "quantized")]
        where message.has(field) {
            throw unsupported("\(what) stored as \(kind) values are not supported (float32 only)")
        }
        let values = try message.floats(F.weightFloat)
        // As a .pkw bundle's tensors are checked when it is loaded: one NaN or infinity would make
        // every probability NaN for every window, reported as a label with null probabilities.
        if let bad = values.firstIndex(where: { !$0.isFinite }) {
            throw unsupported("\(what) hold a value that is not finite (\(values[bad]) at index \(bad))")
        }
        return values
    }
}
