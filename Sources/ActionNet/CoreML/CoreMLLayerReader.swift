import CoreMLFormat
import Protobuf

/// Maps one layer read by Core ML's reader (`CoreMLLayerSpec`) to a ``CoreMLLayer`` the Create ML
/// mapper makes graph nodes of, checking every parameter it would otherwise ignore: a layer kind or
/// a setting no graph operation runs (grouped or dilated convolution, deconvolution, SAME padding, a non-ReLU activation,
/// ...) is refused with ``CoreMLModelError/unsupportedLayer(file:layer:detail:)``. Integers and
/// weights come range-checked and by the one fp16 rule from the reader.
struct CoreMLLayerReader {
    typealias F = CoreMLField
    let file: String

    /// The kinds this runtime runs (every kind the reader knows but the unary functions, which only
    /// PoseNet's ReLU6 spelling uses).
    static let runs: [F.Kind] = F.Kind.allCases.filter { $0 != .unary }

    func read(_ layer: CoreMLLayerSpec) throws -> CoreMLLayer {
        do {
            return try decode(layer)
        } catch let error as CoreMLFormatError {
            throw CoreMLModelError(error, file: file)
        } catch let error as ProtobufError {
            throw CoreMLModelError(CoreMLFormatError(layer: layer.name, "\(error)", malformed: true), file: file)
        }
    }

    // swiftlint:disable:next cyclomatic_complexity function_body_length
    private func decode(_ layer: CoreMLLayerSpec) throws -> CoreMLLayer {
        let inputs = layer.inputs, outputs = layer.outputs, p = layer.parameters
        func unsupported(_ detail: String) -> CoreMLFormatError { layer.failure(detail) }
        guard let kind = layer.kind, Self.runs.contains(kind) else {
            throw unsupported("unsupported layer kind '\(layer.kindName)'; PoseKit runs \(Self.runs.map(\.name).joined(separator: ", "))")
        }
        func inputCount(_ range: ClosedRange<Int>) throws {
            guard range.contains(inputs.count) else { throw unsupported("\(inputs.count) inputs, expected \(range.lowerBound == range.upperBound ? "\(range.lowerBound)" : "\(range)")") }
        }
        if kind != .splitND { guard outputs.count == 1 else { throw unsupported("\(outputs.count) outputs, expected 1") } }
        let operation: CoreMLOperation
        switch kind {
        case .convolution:
            try inputCount(1...1)
            operation = .convolution(try convolution(layer))
        case .pooling:
            try inputCount(1...1)
            operation = .pooling(try pooling(layer))
        case .activation:
            try inputCount(1...1)
            let functions = p.all.map(\.number)
            guard functions == [F.activationReLU] else {
                throw unsupported("unsupported activation (ActivationParams field \(functions.map(String.init).joined(separator: ", "))); PoseKit runs ReLU")
            }
            operation = .relu
        case .batchnorm:
            try inputCount(1...1)
            operation = try batchnorm(layer)
        case .softmax:
            try inputCount(1...1)
            operation = .softmax
        case .softmaxND:
            try inputCount(1...1)
            operation = .softmaxND(axis: try axis(p, F.ndAxis, "softmaxND axis", unsupported))
        case .padding:
            try inputCount(1...1)
            guard !p.has(F.paddingReflection), !p.has(F.paddingReplication) else { throw unsupported("reflection / replication padding is not supported (constant only)") }
            let value = try p.message(F.paddingConstant)?.float(F.paddingConstantValue) ?? 0
            guard value.isFinite else { throw unsupported("padding value \(value) is not finite") }
            let amounts = try layer.borderAmounts(p.message(F.paddingAmounts))
            operation = .padding(top: amounts.top, bottom: amounts.bottom, left: amounts.left, right: amounts.right, value: value)
        case .add:
            try inputCount(1...16)
            let alpha = try p.float(F.addAlpha)
            guard alpha.isFinite else { throw unsupported("add alpha \(alpha) is not finite") }
            operation = .add(alpha: alpha)
        case .concat:
            try inputCount(1...64)
            guard try !p.bool(F.concatSequence) else { throw unsupported("sequence concat is not supported") }
            operation = .concat
        case .addBroadcastable:
            try inputCount(2...2)
            operation = .addBroadcastable
        case .gather:
            try inputCount(2...2)
            operation = .gather(axis: try axis(p, F.ndAxis, "gather axis", unsupported))
        case .splitND:
            try inputCount(1...1)
            let sizes = try layer.integers(F.splitSizes, in: 1...Self.maxAxisSize, "splitND size")
            let count = try layer.integer(F.splitNumSplits, in: 0...Self.maxAxisSize, "splitND numSplits")
            guard outputs.count == (sizes.isEmpty ? count : sizes.count), !outputs.isEmpty else {
                throw unsupported("splitND into \(sizes.isEmpty ? count : sizes.count) parts writes \(outputs.count) outputs")
            }
            operation = .splitND(axis: try axis(p, F.ndAxis, "splitND axis", unsupported), count: outputs.count, sizes: sizes)
        case .concatND:
            try inputCount(1...64)
            guard p.all.allSatisfy({ $0.number == F.ndAxis }) else { throw unsupported("concatND interleave is not supported") }
            operation = .concatND(axis: try axis(p, F.ndAxis, "concatND axis", unsupported))
        case .transpose:
            try inputCount(1...1)
            operation = .transpose(axes: try layer.integers(F.ndAxis, in: 0...Self.maxRank - 1, "transpose axis"))
        case .getShape:
            try inputCount(1...1)
            operation = .getShape
        case .loadConstantND:
            try inputCount(0...0)
            let shape = try layer.integers(F.constantShape, in: 1...Self.maxAxisSize, "loadConstantND shape size")
            let values = try layer.weights(F.constantData, "constant").values
            guard shape.count <= Self.maxRank, CreateMLShapes.checkedCount(shape) == values.count else {
                throw unsupported("loadConstantND shape \(shape) does not hold the \(values.count) values of its data")
            }
            operation = .loadConstant(shape: shape, values: values)
        case .squeeze:
            try inputCount(1...1)
            operation = .squeeze(axes: try axes(p, F.ndAxis, "squeeze axes", unsupported), all: try p.bool(F.squeezeAll))
        case .expandDims:
            try inputCount(1...1)
            operation = .expandDims(axes: try axes(p, F.ndAxis, "expandDims axes", unsupported))
        case .reshapeStatic:
            try inputCount(1...1)
            let shape = try p.ints(F.ndAxis)
            guard shape.count <= Self.maxRank, shape.allSatisfy({ (-1...Self.maxAxisSize).contains($0) }) else {
                throw unsupported("reshapeStatic target shape \(shape) is not at most \(Self.maxRank) sizes in -1...\(Self.maxAxisSize)")
            }
            operation = .reshapeStatic(shape: shape)
        case .reshapeDynamic:
            try inputCount(2...2)
            operation = .reshapeDynamic
        case .unary:
            throw unsupported("unsupported layer kind '\(layer.kindName)'")  // excluded by `runs` above
        }
        return CoreMLLayer(name: layer.name, inputs: inputs, outputs: outputs, operation: operation, kind: layer.kindName)
    }

    private func convolution(_ layer: CoreMLLayerSpec) throws -> CoreMLConvolution {
        func unsupported(_ detail: String) -> CoreMLFormatError { layer.failure(detail) }
        let spec = try CoreMLConvolutionSpec(layer)
        guard spec.groups == 1 else { throw unsupported("grouped convolution (groups \(spec.groups)) is not supported") }
        guard !spec.isDeconvolution else { throw unsupported("deconvolution is not supported") }
        guard case .valid(let top, let bottom, let left, let right) = spec.padding else {
            throw unsupported("SAME convolution padding is not supported (valid with explicit amounts only)")
        }
        let kernel = try pair(spec.kernelSize, default: 3, "kernelSize", unsupported)
        let stride = try pair(spec.stride, default: 1, "stride", unsupported)
        let dilation = try pair(spec.dilation, default: 1, "dilationFactor", unsupported)
        guard dilation == (1, 1) else { throw unsupported("dilated convolution (\(dilation.0)x\(dilation.1)) is not supported") }
        let (cout, cin) = (spec.outputChannels, spec.kernelChannels)
        guard spec.weights.count == cout * cin * kernel.0 * kernel.1 else {
            throw unsupported("convolution weights hold \(spec.weights.count) values, [\(cout), \(cin), \(kernel.0), \(kernel.1)] needs \(cout * cin * kernel.0 * kernel.1)")
        }
        return CoreMLConvolution(inputChannels: cin, outputChannels: cout, kernelHeight: kernel.0, kernelWidth: kernel.1,
                                 strideY: stride.0, strideX: stride.1, padTop: top, padBottom: bottom, padLeft: left, padRight: right,
                                 oihw: spec.weights.values, bias: spec.bias?.values)
    }

    private func pooling(_ layer: CoreMLLayerSpec) throws -> CoreMLPooling {
        func unsupported(_ detail: String) -> CoreMLFormatError { layer.failure(detail) }
        let p = layer.parameters
        let type = try p.uint(F.poolingType)
        guard type == F.poolingMax || type == F.poolingAverage else { throw unsupported("L2 pooling is not supported") }
        guard !p.has(F.poolingSame), !p.has(F.poolingIncludeLastPixel) else {
            throw unsupported("pooling padding other than valid is not supported")
        }
        let size = 0...CoreMLLayerSpec.maxSpatialSize
        let kernel = try pair(layer.integers(F.poolingKernelSize, in: size, "pooling kernelSize"), default: 3, "kernelSize", unsupported)
        let stride = try pair(layer.integers(F.poolingStride, in: size, "pooling stride"), default: 1, "stride", unsupported)
        let padding = try layer.borderAmounts(p.message(F.poolingValid)?.message(F.validPaddingAmounts))
        return CoreMLPooling(average: type == F.poolingAverage, global: try p.bool(F.poolingGlobal),
                             kernelHeight: kernel.0, kernelWidth: kernel.1, strideY: stride.0, strideX: stride.1,
                             padTop: padding.top, padBottom: padding.bottom, padLeft: padding.left, padRight: padding.right,
                             excludePadding: try p.bool(F.poolingAvgExcludePadding))
    }

    private func batchnorm(_ layer: CoreMLLayerSpec) throws -> CoreMLOperation {
        // In double: scale and shift each one rounding from γ/√(σ² + ε) and β − μ·γ/√(σ² + ε).
        let (scale, shift) = try CoreMLBatchnormSpec(layer).folded(in: .double)
        return .batchnorm(scale: scale, shift: shift)
    }

    /// Any one axis of a constant or a split.
    static let maxAxisSize = 1 << 28
    /// Blob ranks: Core ML's N-D layers go to rank 5; a little room beyond.
    static let maxRank = 8

    /// A signed `int64` axis list (negative counts from the end), each within ±`maxRank`.
    private func axes(_ p: ProtobufFields, _ field: Int, _ what: String, _ unsupported: (String) -> CoreMLFormatError) throws -> [Int] {
        let values = try p.ints(field)
        guard values.allSatisfy({ (-Self.maxRank...Self.maxRank).contains($0) }) else {
            throw unsupported("\(what) \(values) outside -\(Self.maxRank)...\(Self.maxRank)")
        }
        return values
    }

    /// A signed `int64` axis (negative counts from the end) within ±`maxRank`.
    private func axis(_ p: ProtobufFields, _ field: Int, _ what: String, _ unsupported: (String) -> CoreMLFormatError) throws -> Int {
        let value = try p.int(field)
        guard (-Self.maxRank...Self.maxRank).contains(value) else {
            throw unsupported("\(what) \(value) is outside -\(Self.maxRank)...\(Self.maxRank)")
        }
        return value
    }

    /// A `repeated uint64` [H, W] pair, already range-checked by the reader (absent: `default` for both).
    private func pair(_ values: [Int], default fallback: Int, _ what: String, _ unsupported: (String) -> CoreMLFormatError) throws -> (Int, Int) {
        if values.isEmpty { return (fallback, fallback) }
        guard values.count == 2, values.allSatisfy({ (1...CoreMLLayerSpec.maxSpatialSize).contains($0) }) else {
            throw unsupported("\(what) \(values) is not two sizes in 1...\(CoreMLLayerSpec.maxSpatialSize)")
        }
        return (values[0], values[1])
    }
}
