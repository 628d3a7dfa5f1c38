import Foundation
import ModelGraph
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
/// Inference runs the network as a `ModelGraph` graph (``graph()``) on the graph runner, as
/// every network here runs: each temporal convolution a 2-D convolution of the image `[1, T, C]`
/// with HWIO weights `[1, k, Cin, Cout]`, the mean over time, the dense layer, the softmax.
///
/// Every parameter lives in one flat vector (weights KIO `[k, Cin, Cout]` then biases, layer by
/// layer; the dense layer's weights are `[C2, 5]`, then its 5 biases), which is what the weight
/// bundle stores and what training updates (training keeps its own forward and backward pass,
/// `ActionTraining`; its tests check both passes give the same logits). The runner is made from
/// the parameters at the first inference and again after they change (``parameterValues``, or
/// `parametersChanged()`, training's, after an update in place).
///
/// One network holds one runner: call ``probabilities(features:)`` from one thread at a time.
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
    /// The runner on ``graph()`` of the current parameters (nil: made at the next inference).
    private var runner: GraphRunner?

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
            parametersChanged()
        }
    }

    /// Tells the network its parameters were changed in place (an optimizer's update through
    /// ``parameters``): the next inference plans its graph from them again.
    @_spi(Training) public func parametersChanged() { runner = nil }

    /// Class probabilities for one window's features (``PoseWindow/features()``, `[T, 51]`).
    public func probabilities(features: [Float]) -> [Double] {
        precondition(features.count == architecture.windowLength * architecture.inputChannels, "feature size")
        do {
            return try logitsAndProbabilities(features: features).probabilities.map(Double.init)
        } catch {
            preconditionFailure("TemporalConvNet: \(error)")  // shapes are fixed at init; cannot happen
        }
    }

    /// Logits and softmax probabilities for one window (the forward pass), on the graph runner.
    @_spi(Training) public func logitsAndProbabilities(features: [Float]) throws -> (logits: [Float], probabilities: [Float]) {
        let runner = try self.runner ?? GraphRunner(graph: graph(), threads: threads)
        self.runner = runner
        let outputs = try runner.run([Tensor(shape: [architecture.windowLength, architecture.inputChannels], values: features)])
        return (outputs[1].scalars, outputs[0].scalars)
    }
}
