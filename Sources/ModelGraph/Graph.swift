import Tensor

/// A network as a directed acyclic graph of operations over numbered values, independent of the
/// file format it was read from.
///
/// Importers (the TFLite mapper today) build a `Graph`; the graph runner executes it on `Tensor`'s
/// kernels. Everything a runner needs is decided at import: every value's static shape, padding as
/// explicit amounts, weights folded to float32 (fp16 `DEQUANTIZE` and sparse `DENSIFY` are gone)
/// and laid out for our kernels (see ``GraphOperation``).
///
/// Layout conventions (batch 1, the batch axis dropped):
/// - feature maps: `[height, width, channels]` (NHWC without the N), as everywhere in `Tensor`;
/// - other values keep the source's shape without a leading batch axis of 1 (a `[1, 2016, 18]`
///   output is `[2016, 18]`; a `[1, 63]` output is `[63]`).
///
/// ``nodes`` are in an order where every node comes after the producers of its inputs
/// (``validate()`` checks it, so a cycle in a file is refused, never run).
public struct Graph: Sendable {
    /// Every value (input, constant or intermediate), indexed by ``ValueID``.
    public var values: [GraphValue]
    /// The operations, producers before consumers.
    public var nodes: [GraphNode]
    /// The graph's inputs, in the model's input order.
    public var inputs: [ValueID]
    /// The graph's outputs, in the model's output order.
    public var outputs: [ValueID]
    /// Which 1×1 convolutions run a reduced precision when a runner asks for one (Tensor's one
    /// rule, with the family's threshold; a bundle stores a threshold other than the standard one).
    public var reducedPrecision: ReducedPrecisionRule
    /// The constants in the forms the kernels read, packed once and shared by every runner of this
    /// graph and of its copies (other thread counts, output selections, frames in flight), and of
    /// other graphs given the same store (one network at several input sizes).
    public let weights: GraphWeights

    /// A graph of these values and nodes; `weights` shared with other graphs on the same constants
    /// (by default a store of its own).
    public init(values: [GraphValue], nodes: [GraphNode], inputs: [ValueID], outputs: [ValueID],
                reducedPrecision: ReducedPrecisionRule = .standard, weights: GraphWeights = GraphWeights()) {
        self.values = values
        self.nodes = nodes
        self.inputs = inputs
        self.outputs = outputs
        self.reducedPrecision = reducedPrecision
        self.weights = weights
    }
}

/// An index into ``Graph/values``.
public typealias ValueID = Int

/// One value of a graph: a name (the source file's tensor name), a static shape, and for
/// constants the data.
public struct GraphValue: Sendable {
    /// The tensor's name in the source file (for errors and `posekit info`).
    public var name: String
    /// The static shape, batch axis dropped (see ``Graph``).
    public var shape: [Int]
    /// The folded float32 data of a constant (weights, biases, slopes), laid out as the consuming
    /// operation documents; nil for inputs and intermediate values.
    public var constant: Tensor?

    public init(name: String, shape: [Int], constant: Tensor? = nil) {
        self.name = name
        self.shape = shape
        self.constant = constant
    }

    /// Number of elements.
    public var count: Int { shape.reduce(1, *) }
}

/// One operation: what it computes and which values it reads and writes.
public struct GraphNode: Sendable {
    /// What the node computes (one of ``GraphOperationRegistry``'s types, e.g. ``Conv2DOp``).
    public var operation: any GraphOperation
    /// Input values, in the operation's documented order.
    public var inputs: [ValueID]
    /// Output values (every operation here has exactly one).
    public var outputs: [ValueID]

    public init(operation: any GraphOperation, inputs: [ValueID], outputs: [ValueID]) {
        self.operation = operation
        self.inputs = inputs
        self.outputs = outputs
    }
}

/// Zero padding of a 2-D window operation, resolved to amounts at import.
///
/// TF "SAME" becomes `before = total / 2`, `after = total - before` (the odd pixel bottom/right);
/// "VALID" is all zeros; an explicit `PAD` op before a VALID convolution stays a separate node.
public struct SpatialPadding: Sendable, Equatable, CustomStringConvertible {
    public var top: Int, left: Int, bottom: Int, right: Int
    public init(top: Int, left: Int, bottom: Int, right: Int) {
        self.top = top; self.left = left; self.bottom = bottom; self.right = right
    }
    public static let zero = SpatialPadding(top: 0, left: 0, bottom: 0, right: 0)
    public var description: String { "[\(top),\(left),\(bottom),\(right)]" }
}

/// The 2-D window of a convolution or pooling.
public struct Window2D: Sendable, Equatable {
    public var kernelHeight: Int, kernelWidth: Int
    public var strideHeight: Int, strideWidth: Int
    public var dilationHeight: Int, dilationWidth: Int
    public var padding: SpatialPadding

    public init(kernelHeight: Int, kernelWidth: Int, strideHeight: Int, strideWidth: Int,
                dilationHeight: Int = 1, dilationWidth: Int = 1, padding: SpatialPadding) {
        self.kernelHeight = kernelHeight; self.kernelWidth = kernelWidth
        self.strideHeight = strideHeight; self.strideWidth = strideWidth
        self.dilationHeight = dilationHeight; self.dilationWidth = dilationWidth
        self.padding = padding
    }
}
