import Tensor

/// The plan pass that runs the 1×1 convolutions of one input whose outputs are concatenated
/// along channels as one GEMM, the weights side by side, writing the concatenation's output in
/// place (PoseNet's four heads: 17 + 34 + 32 + 32 channels as one 115-channel product, one pass
/// over the input instead of four and fewer partial panels), then the logistic sigmoid in place
/// on the channel ranges of inputs that went through one (PoseNet's heatmap).
///
/// A merge is a `concatenation` along the last axis of two or more inputs, each a 1×1 `conv2D`
/// (stride 1, unpadded, all with one activation) of one value `x`, or a `logistic` of one, each
/// read by the concatenation alone (or by its `logistic` alone), not a requested output and
/// leading no epilogue chain. The values are those of the separate nodes (each output channel's
/// dot product is the same).
enum SharedInputGEMM {
    /// One merge: the concatenation's node, the 1×1 convolutions in channel order, and which of
    /// them go through a `logistic` (its node).
    struct Merge {
        var concatenation: Int
        var convolutions: [Int]
        var logistics: [Int?]
        /// Every node the merged step runs.
        var nodes: [Int] { convolutions + logistics.compactMap { $0 } + [concatenation] }
    }

    static func merges(_ graph: Graph, needed: [Bool], outputs: [ValueID], producer: [Int?], chains: [Int: EpilogueChain]) -> [Merge] {
        var readers = [Int](repeating: 0, count: graph.values.count)
        for (index, node) in graph.nodes.enumerated() where needed[index] { for id in node.inputs { readers[id] += 1 } }
        for id in outputs { readers[id] += 1 }
        var merges: [Merge] = []
        for (index, node) in graph.nodes.enumerated() where needed[index] {
            guard let concatenation = node.operation as? ConcatenationOp, node.inputs.count >= 2,
                  concatenation.axis == graph.values[node.outputs[0]].shape.count - 1 else { continue }
            var convolutions: [Int] = [], logistics: [Int?] = []
            var source: ValueID?, activation: Activation?
            for id in node.inputs {
                guard readers[id] == 1, var p = producer[id] else { break }
                var logistic: Int?
                if graph.nodes[p].operation is LogisticOp {
                    let y = graph.nodes[p].inputs[0]
                    guard readers[y] == 1, let q = producer[y] else { break }
                    logistic = p
                    p = q
                }
                let conv = graph.nodes[p]
                guard let op = conv.operation as? Conv2DOp, chains[p] == nil, conv.inputs.count == 3,
                      let w = graph.values[conv.inputs[1]].constant, w.rank == 4, Conv2DOp.isPointwise(op.window, w.shape[0], w.shape[1]),
                      source == nil || source == conv.inputs[0], activation == nil || activation == op.activation else { break }
                source = conv.inputs[0]
                activation = op.activation
                convolutions.append(p)
                logistics.append(logistic)
            }
            guard convolutions.count == node.inputs.count, Set(convolutions).count == convolutions.count else { continue }
            merges.append(Merge(concatenation: index, convolutions: convolutions, logistics: logistics))
        }
        return merges
    }
}

/// 1×1 convolutions of one input as one GEMM into their concatenation (``SharedInputGEMM``),
/// then the sigmoid in place on `sigmoidChannels`.
struct SharedInputGEMMKernel: GraphKernel {
    let weights: PackedPointwiseWeights
    let activation: Activation
    let sigmoidChannels: [Range<Int>]
    /// How many convolutions were merged.
    let merged: Int
    var kind: String {
        "conv 1x1 (\(merged) merged)" + (weights.precision == .fp32 ? "" : " \(weights.precision.rawValue)")
            + (sigmoidChannels.isEmpty ? "" : " + logistic")
    }
    var kernels: String { weights.kernelFamily }
    func run(_ io: GraphKernelIO) throws {
        try Convolution.pointwise(io.input(0), packed: weights, activation: activation, into: io.output,
                                  skippingZeroChannels: io.skipsZeroChannels, threads: io.threads)
        for channels in sigmoidChannels { try TensorNonlinearities.sigmoid(channels: channels, inPlace: io.output) }
    }
}

extension SharedInputGEMM {
    /// Binds `merge` at its concatenation: the convolutions' weights side by side (`[C, ΣCout]`),
    /// packed once from the graph's store, in the precision the rule gives the concatenation's value.
    static func bind(_ merge: Merge, binding: inout GraphBinding) throws {
        let graph = binding.graph
        var weights: [Tensor] = [], biases: [Tensor] = []
        var sigmoidChannels: [Range<Int>] = []
        var activation = Activation.none
        var total = 0
        for (conv, logistic) in zip(merge.convolutions, merge.logistics) {
            let node = graph.nodes[conv]
            let w = try binding.constant(value: node.inputs[1], "weights", of: conv, node.operation)
            let b = try binding.constant(value: node.inputs[2], "bias", of: conv, node.operation)
            activation = (node.operation as? Conv2DOp)?.activation ?? .none
            if logistic != nil { sigmoidChannels.append(total..<(total + w.shape[3])) }
            total += w.shape[3]
            weights.append(w)
            biases.append(b)
        }
        let x = graph.nodes[merge.convolutions[0]].inputs[0]
        let cin = weights[0].shape[2]
        let precision = binding.pointwisePrecision(inputChannels: cin)
        let sources = weights + biases
        let fp32 = try binding.prepared("merged gemm", of: sources) { () throws -> PackedPointwiseWeights in
            var matrix = [Float](repeating: 0, count: cin * total), bias = [Float](repeating: 0, count: total)
            var column = 0
            for (w, b) in zip(weights, biases) {
                let n = w.shape[3]
                w.withUnsafeBufferPointer { src in
                    for row in 0..<cin { for j in 0..<n { matrix[row * total + column + j] = src[row * n + j] } }
                }
                b.withUnsafeBufferPointer { src in for j in 0..<n { bias[column + j] = src[j] } }
                column += n
            }
            return try PackedPointwiseWeights(weights: try Tensor(shape: [cin, total], values: matrix),
                                              bias: try Tensor(shape: [total], values: bias))
        }
        let packed = precision == .fp32 ? fp32
            : try binding.prepared("merged gemm \(precision.rawValue)", of: sources) { try fp32.converted(to: precision) }
        binding.addStep(SharedInputGEMMKernel(weights: packed, activation: activation, sigmoidChannels: sigmoidChannels,
                                              merged: merge.convolutions.count), [x], fusing: merge.nodes.filter { $0 != merge.concatenation })
    }
}
