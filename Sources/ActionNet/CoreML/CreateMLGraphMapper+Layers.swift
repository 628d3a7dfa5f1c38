import ModelGraph
import Tensor

extension CreateMLGraphMapper {
    /// The output blobs of one layer, its graph nodes added.
    // swiftlint:disable:next cyclomatic_complexity function_body_length
    mutating func map(_ layer: CoreMLLayer, _ x: [CreateMLBlob]) throws -> [CreateMLBlob] {
        let name = layer.outputs.first ?? layer.name
        func failed(_ detail: String) -> CoreMLModelError { .layerFailed(layer: layer.name, detail: detail) }
        switch layer.operation {
        case .convolution(let conv):
            return [try convolution(conv, x[0], layer: layer, name: name)]
        case .pooling(let pooling):
            return [try pool(pooling, x[0], layer: layer, name: name)]
        case .batchnorm(let scale, let shift):
            return [try batchnorm(scale: scale, shift: shift, x[0], input: layer.inputs[0], layer: layer, name: name)]
        case .relu:
            return [try relu(x[0], input: layer.inputs[0], layer: layer, name: name)]
        case .softmax:
            return [try softmax(x[0], axis: x[0].rank >= 4 ? -3 : -1, layer: layer, name: name)]
        case .softmaxND(let axis):
            return [try softmax(x[0], axis: axis, layer: layer, name: name)]
        case .padding(let top, let bottom, let left, let right, let value):
            return [try padding(x[0], SpatialPadding(top: top, left: left, bottom: bottom, right: right), value: value,
                                layer: layer, name: name)]
        case .add(let alpha):
            return [try add(x, alpha: alpha, layer: layer, name: name)]
        case .addBroadcastable:
            guard x[0].shape == x[1].shape else {
                throw CoreMLModelError.unsupportedLayer(file: file, layer: layer.name, detail: "broadcasting add of \(x[0].shape) and \(x[1].shape) is not supported (equal shapes only)")
            }
            return [try add(x, alpha: 0, layer: layer, name: name)]
        case .concat:
            guard x.allSatisfy({ $0.rank >= 3 }) else { throw failed("concat needs [.., C, H, W] inputs, got \(x.map(\.shape))") }
            return [try concatenate(x, axis: -3, layer: layer, name: name)]
        case .concatND(let axis):
            return [try concatenate(x, axis: axis, layer: layer, name: name)]
        case .splitND(let axis, let count, let sizes):
            return try split(x[0], axis: axis, count: count, sizes: sizes, layer: layer)
        case .gather(let axis):
            return [try gather(x[0], x[1], axis: axis, layer: layer)]
        case .transpose(let axes):
            return [try transpose(x[0], axes: axes, layer: layer, name: name)]
        case .getShape:
            return [CreateMLBlob(shape: [x[0].rank], storage: .constant(x[0].shape.map(Float.init)))]
        case .loadConstant(let shape, let values):
            return [CreateMLBlob(shape: shape, storage: .constant(values))]
        case .squeeze(let axes, let all):
            return [try reshape(x[0], to: try CreateMLShapes.squeezed(x[0].shape, axes: axes, all: all, failed), layer: layer, name: name)]
        case .expandDims(let axes):
            return [try reshape(x[0], to: try CreateMLShapes.expanded(x[0].shape, axes: axes, failed), layer: layer, name: name)]
        case .reshapeStatic(let shape):
            return [try reshape(x[0], to: try CreateMLShapes.reshaped(x[0].shape, to: shape, failed), layer: layer, name: name)]
        case .reshapeDynamic:
            guard case .constant(let target) = x[1].storage else {
                throw CoreMLModelError.unsupportedLayer(file: file, layer: layer.name, detail: "reshapeDynamic to a shape computed from data is not supported (only from shapes)")
            }
            // Int(exactly:): a finite 1e30 is no size either, and must not trap the conversion.
            let sizes = target.compactMap { Int(exactly: $0) }
            guard sizes.count == target.count else { throw failed("target shape \(target) is not integers") }
            return [try reshape(x[0], to: try CreateMLShapes.reshaped(x[0].shape, to: sizes, failed), layer: layer, name: name)]
        }
    }

    // MARK: Image-style layers

    private mutating func convolution(_ conv: CoreMLConvolution, _ x: CreateMLBlob, layer: CoreMLLayer, name: String) throws -> CreateMLBlob {
        guard x.rank >= 4, x.shape[x.rank - 3] == conv.inputChannels else {
            throw CoreMLModelError.layerFailed(layer: layer.name, detail: "convolution over \(conv.inputChannels) channels got input \(x.shape) (needs [.., \(conv.inputChannels), H, W])")
        }
        let (input, folded) = try channelsLast(x, name: layer.inputs[0], layer: layer.name, takingPadding: true)
        // The value's own size: a folded padding layer's blob counts its padding, the value does not.
        let (h, w) = (shape(of: input)[0], shape(of: input)[1])
        let padding = SpatialPadding(top: conv.padTop + folded.top, left: conv.padLeft + folded.left,
                                     bottom: conv.padBottom + folded.bottom, right: conv.padRight + folded.right)
        let paddedH = h + padding.top + padding.bottom, paddedW = w + padding.left + padding.right
        guard paddedH >= conv.kernelHeight, paddedW >= conv.kernelWidth else {
            throw CoreMLModelError.layerFailed(layer: layer.name, detail: "\(conv.kernelHeight)x\(conv.kernelWidth) kernel does not fit input \(x.shape) with its padding")
        }
        let (oh, ow) = ((paddedH - conv.kernelHeight) / conv.strideY + 1, (paddedW - conv.kernelWidth) / conv.strideX + 1)
        let window = Window2D(kernelHeight: conv.kernelHeight, kernelWidth: conv.kernelWidth, strideHeight: conv.strideY,
                              strideWidth: conv.strideX, padding: padding)
        let (cin, cout, kh, kw) = (conv.inputChannels, conv.outputChannels, conv.kernelHeight, conv.kernelWidth)
        // OIHW → HWIO.
        var hwio = [Float](repeating: 0, count: conv.oihw.count)
        for o in 0..<cout {
            for i in 0..<cin {
                for y in 0..<kh {
                    for xx in 0..<kw { hwio[((y * kw + xx) * cin + i) * cout + o] = conv.oihw[((o * cin + i) * kh + y) * kw + xx] }
                }
            }
        }
        let weights = try constant(layer.name + "/weights", [kh, kw, cin, cout], hwio)
        let bias = try constant(layer.name + "/bias", [cout], conv.bias ?? [Float](repeating: 0, count: cout))
        let out = node(Conv2DOp(window: window, activation: .none), [input, weights, bias], name: name, shape: [oh, ow, cout])
        return CreateMLBlob(shape: Array(x.shape.dropLast(3)) + [cout, oh, ow], storage: .value(out, .channelsLast))
    }

    private mutating func pool(_ p: CoreMLPooling, _ x: CreateMLBlob, layer: CoreMLLayer, name: String) throws -> CreateMLBlob {
        guard x.rank >= 3 else { throw CoreMLModelError.layerFailed(layer: layer.name, detail: "pooling needs [.., C, H, W], got \(x.shape)") }
        let (c, h, w) = (x.shape[x.rank - 3], x.shape[x.rank - 2], x.shape[x.rank - 1])
        let whole = p.global || (p.kernelHeight == h && p.kernelWidth == w && p.padTop + p.padBottom + p.padLeft + p.padRight == 0)
        let input = try channelsLast(x, name: layer.inputs[0], layer: layer.name).value
        if whole && p.average {
            // The plane's mean, [C], seen as [1, 1, C].
            let mean = node(SpatialMeanOp(), [input], name: name + "/mean", shape: [c])
            return CreateMLBlob(shape: Array(x.shape.dropLast(2)) + [1, 1], storage: .value(try reshaped(mean, to: [1, 1, c], name: name), .channelsLast))
        }
        let (kh, kw) = whole ? (h, w) : (p.kernelHeight, p.kernelWidth)
        let (sy, sx) = whole ? (1, 1) : (p.strideY, p.strideX)
        let padding = whole ? SpatialPadding.zero : SpatialPadding(top: p.padTop, left: p.padLeft, bottom: p.padBottom, right: p.padRight)
        guard h + padding.top + padding.bottom >= kh, w + padding.left + padding.right >= kw else {
            throw CoreMLModelError.layerFailed(layer: layer.name, detail: "\(kh)x\(kw) pooling window does not fit input \(x.shape)")
        }
        let oh = (h + padding.top + padding.bottom - kh) / sy + 1, ow = (w + padding.left + padding.right - kw) / sx + 1
        let window = Window2D(kernelHeight: kh, kernelWidth: kw, strideHeight: sy, strideWidth: sx, padding: padding)
        let operation: any GraphOperation = p.average ? AveragePool2DOp(window: window, excludingPadding: p.excludePadding) : MaxPool2DOp(window: window)
        let out = node(operation, [input], name: name, shape: [oh, ow, c])
        return CreateMLBlob(shape: Array(x.shape.dropLast(2)) + [oh, ow], storage: .value(out, .channelsLast))
    }

    private mutating func batchnorm(scale: [Float], shift: [Float], _ x: CreateMLBlob, input: String, layer: CoreMLLayer,
                                    name: String) throws -> CreateMLBlob {
        guard x.rank >= 3, x.shape[x.rank - 3] == scale.count else {
            throw CoreMLModelError.layerFailed(layer: layer.name, detail: "batchnorm over \(scale.count) channels got input \(x.shape)")
        }
        // After a convolution whose output it alone reads: its weights and bias take the scale
        // and shift (w · s, b · s + t per output channel).
        if let (index, value) = fusibleNode(of: x, named: input), let conv = node(at: index).operation as? Conv2DOp,
           conv.activation == .none, let weights = constantTensor(node(at: index).inputs[1]), let bias = constantTensor(node(at: index).inputs[2]) {
            let cout = scale.count
            var w = weights.scalars, b = bias.scalars
            for i in w.indices { w[i] *= scale[i % cout] }
            for o in 0..<cout { b[o] = b[o] * scale[o] + shift[o] }
            setConstant(node(at: index).inputs[1], try Tensor(shape: weights.shape, values: w))
            setConstant(node(at: index).inputs[2], try Tensor(shape: bias.shape, values: b))
            return CreateMLBlob(shape: x.shape, storage: .value(value, .channelsLast))
        }
        let layout = Self.layout(of: x)
        let id = try self.value(x, in: layout, name: input, layer: layer.name)
        let axis = Self.heldAxis(x.rank - 3, rank: x.rank, layout)!
        let s = try constant(layer.name + "/scale", [scale.count], scale), t = try constant(layer.name + "/shift", [shift.count], shift)
        let out = node(ScaleShiftOp(axis: axis), [id, s, t], name: name, shape: shape(of: id))
        return CreateMLBlob(shape: x.shape, storage: .value(out, layout))
    }

    private mutating func relu(_ x: CreateMLBlob, input: String, layer: CoreMLLayer, name: String) throws -> CreateMLBlob {
        // After an operation with an activation of its own, none yet, whose output it alone reads.
        if let (index, value) = fusibleNode(of: x, named: input), case .value(_, let layout) = x.storage {
            let operation = node(at: index).operation
            var fused: (any GraphOperation)?
            if let op = operation as? Conv2DOp, op.activation == .none { fused = Conv2DOp(window: op.window, activation: .relu) }
            if let op = operation as? AddOp, op.activation == .none { fused = AddOp(activation: .relu) }
            if let op = operation as? ScaleShiftOp, op.activation == .none { fused = ScaleShiftOp(axis: op.axis, activation: .relu) }
            if let fused {
                replace(index, with: fused)
                return CreateMLBlob(shape: x.shape, storage: .value(value, layout))
            }
        }
        let layout = Self.layout(of: x)
        let id = try self.value(x, in: layout, name: input, layer: layer.name)
        return CreateMLBlob(shape: x.shape, storage: .value(node(ActivationOp(activation: .relu), [id], name: name, shape: shape(of: id)), layout))
    }

    private mutating func padding(_ x: CreateMLBlob, _ amounts: SpatialPadding, value: Float, layer: CoreMLLayer,
                                  name: String) throws -> CreateMLBlob {
        guard x.rank >= 2 else { throw CoreMLModelError.layerFailed(layer: layer.name, detail: "padding needs at least 2 axes, got \(x.shape)") }
        guard value == 0 else {
            throw CoreMLModelError.unsupportedLayer(file: file, layer: layer.name, detail: "constant padding with \(value) is not supported (zeros only)")
        }
        let r = x.rank
        var shape = x.shape
        shape[r - 2] += amounts.top + amounts.bottom
        shape[r - 1] += amounts.left + amounts.right
        let layout = Self.layout(of: x)
        // Before a convolution that alone reads it: the convolution's window takes the padding.
        if fusing, layout == .channelsLast, case .value(let id, _) = x.storage, readCount(of: layer.outputs[0]) == 1,
           let reader = readers(of: layer.outputs[0]).first, case .convolution = reader.operation {
            return CreateMLBlob(shape: shape, storage: .padded(id, amounts))
        }
        let id = try self.value(x, in: layout, name: layer.inputs[0], layer: layer.name)
        let held = CreateMLBlob.heldAxes(layout, rank: r)
        let pads = held.map { axis -> PadAmount in
            axis == r - 2 ? PadAmount(before: amounts.top, after: amounts.bottom)
                : axis == r - 1 ? PadAmount(before: amounts.left, after: amounts.right) : PadAmount(before: 0, after: 0)
        }
        let out = node(PadOp(amounts: pads), [id], name: name, shape: held.map { shape[$0] })
        return CreateMLBlob(shape: shape, storage: .value(out, layout))
    }

    private mutating func add(_ x: [CreateMLBlob], alpha: Float, layer: CoreMLLayer, name: String) throws -> CreateMLBlob {
        guard let first = x.first else { throw CoreMLModelError.layerFailed(layer: layer.name, detail: "add has no inputs") }
        for other in x.dropFirst() where other.shape != first.shape {
            throw CoreMLModelError.layerFailed(layer: layer.name, detail: "add of unequal shapes \(x.map(\.shape))")
        }
        let layout = Self.commonLayout(x)
        let ids = try zip(x, layer.inputs).map { try value($0, in: layout, name: $1, layer: layer.name) }
        let valueShape = shape(of: ids[0])
        if ids.count == 1 {
            // x + alpha: a shift along the last axis.
            guard alpha != 0 else { return CreateMLBlob(shape: first.shape, storage: .value(alias(ids[0]), layout)) }
            let channels = valueShape.last ?? 1
            let s = try constant(layer.name + "/scale", [channels], [Float](repeating: 1, count: channels))
            let t = try constant(layer.name + "/alpha", [channels], [Float](repeating: alpha, count: channels))
            let out = node(ScaleShiftOp(axis: valueShape.count - 1), [ids[0], s, t], name: name, shape: valueShape)
            return CreateMLBlob(shape: first.shape, storage: .value(out, layout))
        }
        var sum = ids[0]
        for (i, id) in ids.dropFirst().enumerated() {
            sum = node(AddOp(activation: .none), [sum, id], name: i == ids.count - 2 ? name : "\(name)/\(i)", shape: valueShape)
        }
        return CreateMLBlob(shape: first.shape, storage: .value(sum, layout))
    }

    private mutating func softmax(_ x: CreateMLBlob, axis: Int, layer: CoreMLLayer, name: String) throws -> CreateMLBlob {
        guard let a = CreateMLShapes.resolve(axis, rank: x.rank) else {
            throw CoreMLModelError.layerFailed(layer: layer.name, detail: "softmax axis \(axis) outside input \(x.shape)")
        }
        var layout = Self.layout(of: x)
        if Self.heldAxis(a, rank: x.rank, layout) == nil { layout = .rowMajor }
        let id = try value(x, in: layout, name: layer.inputs[0], layer: layer.name)
        let out = node(SoftmaxOp(axis: Self.heldAxis(a, rank: x.rank, layout)!), [id], name: name, shape: shape(of: id))
        return CreateMLBlob(shape: x.shape, storage: .value(out, layout))
    }
}
