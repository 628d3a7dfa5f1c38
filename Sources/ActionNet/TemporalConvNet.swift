import Foundation
import Tensor

/// The action classifier: a temporal convolution network (TCN) over a window of poses.
///
/// ```
/// input  [T, 51]            17 keypoints × (x, y, score), normalized per window
/// conv   k9 s2 51→C1, ReLU  [T/2, C1]
/// block  x + conv k9(ReLU(conv k9 (x))), ReLU      residual, as in ST-GCN's temporal units
/// conv   k9 s2 C1→C2, ReLU  [T/4, C2]
/// block  residual, C2
/// mean over time            [C2]
/// dense  C2→5               logits (softmax gives the class probabilities)
/// ```
/// Inference runs on Tensor's kernels: each temporal convolution is a 2-D convolution of the NHWC
/// image `[1, T, C]` with HWIO weights `[1, k, Cin, Cout]` (`TemporalConv`), the dense layer a
/// 1×1 convolution of the pooled `[1, 1, C2]`, then Tensor's softmax.
///
/// Every parameter lives in one flat vector (weights KIO `[k, Cin, Cout]` then biases, layer by
/// layer; the dense layer's weights are `[C2, 5]`, then its 5 biases), which is what the weight
/// bundle stores and what training updates; the layers' weight tensors are views of it.
///
/// One network holds one set of inference buffers: call ``probabilities(features:)`` from one
/// thread at a time.
public final class TemporalConvNet: @unchecked Sendable {
    /// Shape hyper-parameters; stored in the weight bundle.
    public struct Architecture: Equatable, Sendable, Codable {
        public var windowLength = 60
        public var inputChannels = PoseWindow.channels
        public var channels1 = 32
        public var channels2 = 64
        public var kernel = 9
        public var classes = ActionClass.count
        public init() {}
    }

    public let architecture: Architecture
    @_spi(Training) public let conv0, block1a, block1b, conv2, block2a, block2b: TemporalConv
    /// Where the dense layer's `[C2, classes]` weights start in the parameter vector.
    @_spi(Training) public let denseOffset: Int
    /// Number of trainable scalars.
    public let parameterCount: Int
    /// All parameters, flat `[parameterCount]` (order above); the layers' weights are views of it.
    @_spi(Training) public let parameters: Tensor
    /// Dense weights `[C2, classes]` and biases `[classes]`, views of ``parameters``.
    let denseWeights: Tensor, denseBias: Tensor
    /// Cores the convolutions may use. A window costs about 2 MFLOP: one core is faster than
    /// handing 30-row bands to two.
    let threads: Int
    private var buffers: InferenceBuffers?

    /// A network with all parameters zero.
    ///
    /// - Throws: ``ActionNetError/invalidConfiguration(_:)`` for an architecture out of range.
    public init(architecture: Architecture = Architecture(), threads: Int = 1) throws {
        let a = architecture
        let parameterCount = try Self.parameterCount(of: a)
        self.architecture = a
        self.threads = max(1, threads)
        let k = a.kernel
        let layerShapes = Self.layerShapes(of: a)
        denseOffset = layerShapes.reduce(0) { $0 + k * $1.input * $1.output + $1.output }
        self.parameterCount = parameterCount
        parameters = try Tensor(zeros: [parameterCount])
        var offset = 0
        var layers: [TemporalConv] = []
        for (cin, cout, stride) in layerShapes {
            let layer = try TemporalConv(inputChannels: cin, outputChannels: cout, kernel: k, stride: stride,
                                         offset: offset, parameters: parameters)
            offset += layer.parameterCount
            layers.append(layer)
        }
        (conv0, block1a, block1b, conv2, block2a, block2b) = (layers[0], layers[1], layers[2], layers[3], layers[4], layers[5])
        denseWeights = try parameters.slice(denseOffset..<(denseOffset + a.channels2 * a.classes)).reshaped([a.channels2, a.classes])
        denseBias = try parameters.slice((denseOffset + a.channels2 * a.classes)..<parameterCount)
    }

    /// The number of parameters a network of `architecture` holds, known before anything is
    /// allocated: a weight file's claimed architecture is checked against the bytes it really
    /// has with this (`ActionWeightsFile`), so a lying one costs nothing.
    ///
    /// - Throws: ``ActionNetError/invalidConfiguration(_:)`` for an architecture out of range.
    public static func parameterCount(of a: Architecture) throws -> Int {
        guard a.windowLength >= 4, a.windowLength <= 4096, a.kernel % 2 == 1, a.kernel >= 1, a.kernel <= 31,
              a.channels1 >= 1, a.channels1 <= 1024, a.channels2 >= 1, a.channels2 <= 1024,
              a.inputChannels == PoseWindow.channels, a.classes == ActionClass.count else {
            throw ActionNetError.invalidConfiguration("unsupported classifier architecture \(a)")
        }
        let convolutions = layerShapes(of: a).reduce(0) { $0 + a.kernel * $1.input * $1.output + $1.output }
        return convolutions + a.channels2 * a.classes + a.classes
    }

    /// Input and output channels and stride of the six temporal convolutions, in order.
    private static func layerShapes(of a: Architecture) -> [(input: Int, output: Int, stride: Int)] {
        [(a.inputChannels, a.channels1, 2), (a.channels1, a.channels1, 1), (a.channels1, a.channels1, 1),
         (a.channels1, a.channels2, 2), (a.channels2, a.channels2, 1), (a.channels2, a.channels2, 1)]
    }

    /// The parameters as an array (weight bundle order).
    public var parameterValues: [Float] {
        get { parameters.scalars }
        set {
            precondition(newValue.count == parameterCount)
            parameters.withUnsafeMutableBufferPointer { _ = $0.update(from: newValue) }
        }
    }

    /// The activations of one window, each a NHWC `[1, steps, channels]` tensor; those a
    /// convolution reads carry its zero padding on both sides of the time axis.
    final class InferenceBuffers {
        let convolution = ConvolutionWorkspace()
        /// The window's features `[1, T + 2p, 51]`.
        let paddedWindow: Tensor
        /// After the first strided conv, `[1, T/2 + 2p, C1]`; the first block's input and skip.
        let paddedStage1: Tensor
        /// Inside the first residual block, `ReLU(convA(x))`.
        let paddedBlock1Hidden: Tensor
        /// The first block's output, the second strided conv's input.
        let paddedBlock1Output: Tensor
        /// After the second strided conv, `[1, T/4 + 2p, C2]`; the second block's input and skip.
        let paddedStage2: Tensor
        /// Inside the second residual block.
        let paddedBlock2Hidden: Tensor
        /// The second block's output `[1, T/4, C2]` (not padded: only pooled).
        let block2Output: Tensor
        /// Mean over time `[1, 1, C2]`.
        let pooled: Tensor
        /// `[1, 1, classes]`.
        let logits: Tensor
        /// Softmax of the logits `[1, 1, classes]`.
        let probabilities: Tensor

        init(_ net: TemporalConvNet) throws {
            let a = net.architecture
            let t0 = a.windowLength, t1 = net.conv0.outputLength(t0), t2 = net.conv2.outputLength(t1)
            paddedWindow = try net.conv0.paddedInput(time: t0)
            paddedStage1 = try net.block1a.paddedInput(time: t1)
            paddedBlock1Hidden = try net.block1b.paddedInput(time: t1)
            paddedBlock1Output = try net.conv2.paddedInput(time: t1)
            paddedStage2 = try net.block2a.paddedInput(time: t2)
            paddedBlock2Hidden = try net.block2b.paddedInput(time: t2)
            block2Output = try Tensor(zeros: [1, t2, a.channels2])
            pooled = try Tensor(zeros: [1, 1, a.channels2])
            logits = try Tensor(zeros: [1, 1, a.classes])
            probabilities = try Tensor(zeros: [1, 1, a.classes])
        }
    }

    /// Class probabilities for one window's features (``PoseWindow/features()``, `[T, 51]`).
    public func probabilities(features: [Float]) -> [Double] {
        precondition(features.count == architecture.windowLength * architecture.inputChannels, "feature size")
        do {
            return try logitsAndProbabilities(features: features).probabilities.map(Double.init)
        } catch {
            preconditionFailure("TemporalConvNet: \(error)")  // shapes are fixed at init; cannot happen
        }
    }

    /// Logits and softmax probabilities for one window (the forward pass).
    @_spi(Training) public func logitsAndProbabilities(features: [Float]) throws -> (logits: [Float], probabilities: [Float]) {
        let b: InferenceBuffers
        if let existing = buffers { b = existing } else { b = try InferenceBuffers(self); buffers = b }
        let a = architecture, p = conv0.padding, ws = b.convolution
        let t0 = a.windowLength, t1 = conv0.outputLength(t0), t2 = conv2.outputLength(t1)
        try TemporalConv.interior(of: b.paddedWindow, padding: p, time: t0).withUnsafeMutableBufferPointer { _ = $0.update(from: features) }

        let stage1 = try TemporalConv.interior(of: b.paddedStage1, padding: p, time: t1)
        try conv0.forward(paddedInput: b.paddedWindow, activation: .relu, into: stage1, workspace: ws, threads: threads)
        try residualBlock(block1a, block1b, paddedInput: b.paddedStage1, paddedHidden: b.paddedBlock1Hidden,
                          output: TemporalConv.interior(of: b.paddedBlock1Output, padding: p, time: t1), time: t1, workspace: ws)
        let stage2 = try TemporalConv.interior(of: b.paddedStage2, padding: p, time: t2)
        try conv2.forward(paddedInput: b.paddedBlock1Output, activation: .relu, into: stage2, workspace: ws, threads: threads)
        try residualBlock(block2a, block2b, paddedInput: b.paddedStage2, paddedHidden: b.paddedBlock2Hidden,
                          output: b.block2Output, time: t2, workspace: ws)
        // Global average pool over time, then the dense layer as a 1×1 convolution.
        let c2 = a.channels2, inverseSteps = 1 / Float(t2)
        b.block2Output.withUnsafeBufferPointer { steps in
            b.pooled.withUnsafeMutableBufferPointer { pooled in
                for c in 0..<c2 { pooled[c] = 0 }
                for t in 0..<t2 { for c in 0..<c2 { pooled[c] += steps[t * c2 + c] } }
                for c in 0..<c2 { pooled[c] *= inverseSteps }
            }
        }
        try Convolution.pointwise(b.pooled, weights: denseWeights, bias: denseBias, into: b.logits, threads: 1)
        try TensorNonlinearities.softmax(b.logits, into: b.probabilities)
        return (b.logits.scalars, b.probabilities.scalars)
    }

    /// `output = ReLU(x + convB(ReLU(convA(x))))`, `x` the interior of `paddedInput`.
    private func residualBlock(_ convA: TemporalConv, _ convB: TemporalConv, paddedInput: Tensor, paddedHidden: Tensor,
                               output: Tensor, time: Int, workspace: ConvolutionWorkspace) throws {
        let p = convA.padding
        let hidden = try TemporalConv.interior(of: paddedHidden, padding: p, time: time)
        try convA.forward(paddedInput: paddedInput, activation: .relu, into: hidden, workspace: workspace, threads: threads)
        try convB.forward(paddedInput: paddedHidden, activation: .none, into: output, workspace: workspace, threads: threads)
        let skip = try TemporalConv.interior(of: paddedInput, padding: p, time: time)
        skip.withUnsafeBufferPointer { x in
            output.withUnsafeMutableBufferPointer { y in
                for i in 0..<y.count { y[i] = max(0, y[i] + x[i]) }
            }
        }
    }
}
