/// One layer of a Core ML neural network, decoded and checked (``CoreMLLayerReader``): what the
/// Create ML mapper (``CreateMLGraphMapper``) makes graph nodes of.
///
/// `inputs` and `outputs` are blob names; the network is a list of layers in execution order,
/// each reading blobs written earlier (or the model input) and writing new ones.
struct CoreMLLayer: Sendable {
    let name: String
    let inputs: [String]
    let outputs: [String]
    let operation: CoreMLOperation
    /// The `oneof layer` field name (`convolution`, `splitND`, ...), as the reference checksums name kinds.
    let kind: String
}

/// What a layer computes, with its parameters already checked.
///
/// Semantics follow coremltools' `NeuralNetwork.proto`, as settled by the reference README
/// (`reference/createml/README.md`) where the proto text is ambiguous:
/// - image-style layers (convolution, pooling, batchnorm, legacy concat) read the last three axes
///   as `[C, H, W]`, every earlier axis as batch; padding pads the last two axes;
/// - the N-D layers act as NumPy does, with negative axes counted from the end;
/// - the legacy `softmax` normalizes along axis −3 for rank ≥ 4 and along the last axis below
///   that (the ambiguous case: a rank-2 `[1, classes]` input, where only the last axis gives a
///   probability vector; Core ML is reported to use −1 for rank 3 as well);
/// - `concatND` of inputs of different ranks first gives the lower-rank ones leading 1s
///   (NumPy broadcasting's alignment; the proto forbids mixed ranks, and PlayerActionClassifier's
///   shape computation relies on it);
/// - declared tensor shapes (`inputTensor` / `outputTensor`) are not used.
enum CoreMLOperation: Sendable {
    case convolution(CoreMLConvolution)
    case pooling(CoreMLPooling)
    case relu
    /// Batchnorm along axis −3 folded to `x · scale[c] + shift[c]` with
    /// `scale = γ / √(σ² + ε)`, `shift = β − μ · scale`.
    case batchnorm(scale: [Float], shift: [Float])
    /// Legacy softmax (axis rule above).
    case softmax
    case softmaxND(axis: Int)
    /// Constant padding of the last two axes.
    case padding(top: Int, bottom: Int, left: Int, right: Int, value: Float)
    /// Legacy element-wise sum of equal-shaped inputs (one input: `x + alpha`).
    case add(alpha: Float)
    /// Legacy concatenation along axis −3.
    case concat
    case addBroadcastable
    /// `numpy.take(data, indices, axis)`: indices rounded to integers, negatives counted from the end.
    case gather(axis: Int)
    /// Split along `axis` into `sizes` (or `count` equal parts when `sizes` is empty).
    case splitND(axis: Int, count: Int, sizes: [Int])
    case concatND(axis: Int)
    case transpose(axes: [Int])
    /// The input's shape as a rank-1 array.
    case getShape
    /// A constant of `shape` (row-major `values`).
    case loadConstant(shape: [Int], values: [Float])
    /// Remove the listed size-1 axes (all size-1 axes when `all`).
    case squeeze(axes: [Int], all: Bool)
    /// Insert size-1 axes at the listed positions of the output.
    case expandDims(axes: [Int])
    /// Row-major reshape; one −1 is inferred, 0 is not special.
    case reshapeStatic(shape: [Int])
    /// Reshape the first input to the shape given by the second input's values.
    case reshapeDynamic
}
