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
            return .softmaxND(axis: try p.int(F.ndAxis))
        case .padding:
            try inputCount(1...1)
            guard !p.has(F.paddingReflection), !p.has(F.paddingReplication) else { throw unsupported("reflection / replication padding is not supported (constant only)") }
            let value = try p.message(F.paddingConstant)?.float(F.paddingConstantValue) ?? 0
            let (top, bottom, left, right) = try borders(p.message(F.paddingAmounts), unsupported)
            return .padding(top: top, bottom: bottom, left: left, right: right, value: value)
        case .add:
            try inputCount(1...16)
            return .add(alpha: try p.float(F.addAlpha))
        case .concat:
            try inputCount(1...64)
            guard try !p.bool(F.concatSequence) else { throw unsupported("sequence concat is not supported") }
            return .concat
        case .addBroadcastable:
            try inputCount(2...2)
            return .addBroadcastable
        case .gather:
            try inputCount(2...2)
            return .gather(axis: try p.int(F.ndAxis))
        case .splitND:
            try inputCount(1...1)
            let sizes = try p.uints(F.splitSizes).map { Int($0) }
            let count = Int(try p.uint(F.splitNumSplits))
            guard outputs.count == (sizes.isEmpty ? count : sizes.count), !outputs.isEmpty else {
                throw unsupported("splitND into \(sizes.isEmpty ? count : sizes.count) parts writes \(outputs.count) outputs")
            }
            return .splitND(axis: try p.int(F.ndAxis), count: outputs.count, sizes: sizes)
        case .concatND:
            try inputCount(1...64)
            guard p.all.allSatisfy({ $0.number == F.ndAxis }) else { throw unsupported("concatND interleave is not supported") }
            return .concatND(axis: try p.int(F.ndAxis))
        case .transpose:
            try inputCount(1...1)
            return .transpose(axes: try p.uints(F.ndAxis).map { Int($0) })
        case .getShape:
            try inputCount(1...1)
            return .getShape
        case .loadConstantND:
            try inputCount(0...0)
            let shape = try p.uints(F.constantShape).map { Int($0) }
            let values = try weights(p.message(F.constantData), unsupported, what: "constant")
            guard !shape.contains(0), shape.reduce(1, *) == values.count else {
                throw unsupported("loadConstantND shape \(shape) holds \(shape.reduce(1, *)) values, data has \(values.count)")
            }
            return .loadConstant(CoreMLArray(shape: shape, values: values))
        case .squeeze:
            try inputCount(1...1)
            return .squeeze(axes: try p.ints(F.ndAxis), all: try p.bool(F.squeezeAll))
        case .expandDims:
            try inputCount(1...1)
            return .expandDims(axes: try p.ints(F.ndAxis))
        case .reshapeStatic:
            try inputCount(1...1)
            return .reshapeStatic(shape: try p.ints(F.ndAxis))
        case .reshapeDynamic:
            try inputCount(2...2)
            return .reshapeDynamic
        }
    }

    private func convolution(_ p: ProtobufFields, _ unsupported: (String) -> CoreMLModelError) throws -> CoreMLConvolution {
        let cout = Int(try p.uint(F.convOutputChannels)), cin = Int(try p.uint(F.convKernelChannels))
        let groups = max(Int(try p.uint(F.convGroups)), 1)
        guard groups == 1 else { throw unsupported("grouped convolution (groups \(groups)) is not supported") }
        guard try !p.bool(F.convIsDeconvolution) else { throw unsupported("deconvolution is not supported") }
        guard !p.has(F.convSamePadding) else { throw unsupported("SAME convolution padding is not supported (valid with explicit amounts only)") }
        let kernel = try pair(p.uints(F.convKernelSize), default: 3, "kernelSize", unsupported)
        let stride = try pair(p.uints(F.convStride), default: 1, "stride", unsupported)
        let dilation = try pair(p.uints(F.convDilation), default: 1, "dilationFactor", unsupported)
        guard dilation == (1, 1) else { throw unsupported("dilated convolution (\(dilation.0)x\(dilation.1)) is not supported") }
        guard (1...65536).contains(cout), (1...65536).contains(cin) else { throw unsupported("convolution with \(cin) → \(cout) channels") }
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
        let channels = Int(try p.uint(F.bnChannels))
        let epsilon = try p.float(F.bnEpsilon)
        var columns: [[Float]] = []
        for (field, what) in [(F.bnGamma, "gamma"), (F.bnBeta, "beta"), (F.bnMean, "mean"), (F.bnVariance, "variance")] {
            let values = try weights(p.message(field), unsupported, what: "batchnorm \(what)")
            guard values.count == channels else { throw unsupported("batchnorm \(what) holds \(values.count) values for \(channels) channels") }
            columns.append(values)
        }
        // Folded in double so the float32 result is as close as one rounding to γ(x − μ)/√(σ² + ε) + β.
        var scale = [Float](), shift = [Float]()
        for c in 0..<channels {
            let s = Double(columns[0][c]) / (Double(columns[3][c]) + Double(epsilon)).squareRoot()
            scale.append(Float(s))
            shift.append(Float(Double(columns[1][c]) - Double(columns[2][c]) * s))
        }
        return .batchnorm(scale: scale, shift: shift)
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
        return try message.floats(F.weightFloat)
    }
}
