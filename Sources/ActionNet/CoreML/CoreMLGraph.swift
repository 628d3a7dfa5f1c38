/// A Core ML neural network as a list of layers run in order over named blobs: the one runtime
/// for every Create ML action classifier (and any network made of ``CoreMLOperation``'s kinds).
///
/// Running keeps a dictionary from blob name to ``CoreMLArray``: the model input goes in under
/// its feature name, each layer reads its input blobs and writes its output blobs, and the result
/// is the blob named `outputName`. These models are small (a few MB of weights, tens of
/// thousands of activations), so blobs are plain arrays; the convolutions, which do nearly all
/// the arithmetic, run on Tensor's GEMM.
struct CoreMLGraph: Sendable {
    let layers: [CoreMLLayer]
    /// The blob the model input is stored under (the input feature's name).
    let inputName: String
    /// The blob holding the result (the classifier's `labelProbabilityLayerName`).
    let outputName: String

    /// Runs every layer on `input`, calling `observe` (when given) with each layer and its outputs.
    ///
    /// - Parameter threads: cores each convolution's GEMM may use.
    /// - Throws: ``CoreMLModelError/layerFailed(layer:detail:)`` naming the first layer whose
    ///   inputs are missing or do not fit it.
    func run(_ input: CoreMLArray, threads: Int = 1,
             observe: ((CoreMLLayer, [CoreMLArray]) -> Void)? = nil) throws -> CoreMLArray {
        var blobs: [String: CoreMLArray] = [inputName: input]
        for layer in layers {
            let inputs = try layer.inputs.map { name -> CoreMLArray in
                guard let blob = blobs[name] else {
                    throw CoreMLModelError.layerFailed(layer: layer.name, detail: "reads blob '\(name)', which no earlier layer writes")
                }
                return blob
            }
            let outputs = try Self.apply(layer, inputs, threads: threads)
            for (name, blob) in zip(layer.outputs, outputs) { blobs[name] = blob }
            observe?(layer, outputs)
        }
        guard let output = blobs[outputName] else {
            throw CoreMLModelError.layerFailed(layer: outputName, detail: "no layer writes the output blob '\(outputName)'")
        }
        return output
    }

    /// One layer's outputs from its inputs.
    static func apply(_ layer: CoreMLLayer, _ x: [CoreMLArray], threads: Int) throws -> [CoreMLArray] {
        let name = layer.name
        switch layer.operation {
        case .convolution(let conv): return [try conv.run(x[0], layer: name, threads: threads)]
        case .pooling(let pooling): return [try pooling.run(x[0], layer: name)]
        case .relu: return [CoreMLArithmeticOps.relu(x[0])]
        case .batchnorm(let scale, let shift):
            return [try CoreMLArithmeticOps.batchnorm(x[0], scale: scale, shift: shift, layer: name)]
        case .softmax:
            return [try CoreMLArithmeticOps.softmax(x[0], axis: x[0].rank >= 4 ? -3 : -1, layer: name)]
        case .softmaxND(let axis): return [try CoreMLArithmeticOps.softmax(x[0], axis: axis, layer: name)]
        case .padding(let top, let bottom, let left, let right, let value):
            return [try CoreMLLayoutOps.pad(x[0], top: top, bottom: bottom, left: left, right: right, value: value, layer: name)]
        case .add(let alpha): return [try CoreMLArithmeticOps.add(x, alpha: alpha, broadcasting: false, layer: name)]
        case .addBroadcastable: return [try CoreMLArithmeticOps.add(x, alpha: 0, broadcasting: true, layer: name)]
        case .concat:
            guard x.allSatisfy({ $0.rank >= 3 }) else {
                throw CoreMLModelError.layerFailed(layer: name, detail: "concat needs [.., C, H, W] inputs, got \(x.map(\.shape))")
            }
            return [try CoreMLLayoutOps.concat(x, axis: -3, layer: name)]
        case .concatND(let axis): return [try CoreMLLayoutOps.concat(x, axis: axis, layer: name)]
        case .splitND(let axis, let count, let sizes):
            return try CoreMLLayoutOps.split(x[0], axis: axis, count: count, sizes: sizes, layer: name)
        case .gather(let axis): return [try CoreMLLayoutOps.gather(x[0], x[1], axis: axis, layer: name)]
        case .transpose(let axes): return [try CoreMLLayoutOps.transpose(x[0], axes: axes, layer: name)]
        case .getShape: return [CoreMLArray(shape: [x[0].rank], values: x[0].shape.map { Float($0) })]
        case .loadConstant(let constant): return [constant]
        case .squeeze(let axes, let all): return [try CoreMLLayoutOps.squeeze(x[0], axes: axes, all: all, layer: name)]
        case .expandDims(let axes): return [try CoreMLLayoutOps.expandDims(x[0], axes: axes, layer: name)]
        case .reshapeStatic(let shape): return [try CoreMLLayoutOps.reshape(x[0], to: shape, layer: name)]
        case .reshapeDynamic:
            // Int(exactly:): a finite 1e30 is no size either, and must not trap the conversion.
            let target = x[1].values.compactMap { Int(exactly: $0) }
            guard target.count == x[1].count else {
                throw CoreMLModelError.layerFailed(layer: name, detail: "target shape \(x[1].values) is not integers")
            }
            return [try CoreMLLayoutOps.reshape(x[0], to: target, layer: name)]
        }
    }
}
