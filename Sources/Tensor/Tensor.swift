/// A dense float32 tensor in row-major order.
///
/// PoseKit runs batch-1 image networks, so images and feature maps are rank 3 in **NHWC order
/// without the N**: `shape == [height, width, channels]`, channel fastest. Convolution weights are
/// **HWIO** (`[kernelHeight, kernelWidth, inputChannels, outputChannels]`); depthwise weights are
/// `[kernelHeight, kernelWidth, channels]`. Each kernel states the layout it expects.
///
/// `Tensor` is a value type over shared ``TensorStorage``: copying a tensor or taking a view
/// (``reshaped(_:)``, ``slice(_:)``) is O(1) and shares memory. Mutation through
/// ``withUnsafeMutableBufferPointer(_:)`` writes through to every view of the same storage,
/// which is what preallocated activation buffers want.
public struct Tensor: @unchecked Sendable {
    /// The sizes of each axis, outermost first.
    public let shape: [Int]
    /// Where this tensor's first element sits in ``storage``.
    public let offset: Int
    /// The memory this tensor (and possibly other views) lives in.
    public let storage: TensorStorage

    /// Number of elements: the product of ``shape``.
    public var count: Int { shape.reduce(1, *) }
    /// Number of axes.
    public var rank: Int { shape.count }

    /// A zero-filled tensor of the given shape.
    ///
    /// - Throws: ``TensorError/invalidDimension(_:)`` when any axis is zero or negative.
    public init(zeros shape: [Int]) throws {
        try Tensor.validate(shape)
        self.shape = shape
        self.offset = 0
        self.storage = TensorStorage(count: shape.reduce(1, *))
    }

    /// A tensor holding a copy of `values`, which must have exactly `shape`'s element count.
    public init(shape: [Int], values: [Float]) throws {
        try Tensor.validate(shape)
        let n = shape.reduce(1, *)
        guard values.count == n else {
            throw TensorError.shapeMismatch("\(values.count) values for shape \(shape) (\(n) elements)")
        }
        self.shape = shape
        self.offset = 0
        self.storage = TensorStorage(count: n)
        _ = UnsafeMutableBufferPointer(rebasing: storage.buffer[0..<n]).initialize(from: values)
    }

    /// A view onto existing storage. Internal building block for views.
    init(storage: TensorStorage, offset: Int, shape: [Int]) {
        self.storage = storage
        self.offset = offset
        self.shape = shape
    }

    static func validate(_ shape: [Int]) throws {
        guard !shape.isEmpty else { throw TensorError.invalidDimension("a tensor needs at least one axis") }
        for (axis, size) in shape.enumerated() where size <= 0 {
            throw TensorError.invalidDimension("axis \(axis) of shape \(shape) is \(size)")
        }
    }

    /// The same elements seen with another shape of equal element count (no copy).
    public func reshaped(_ newShape: [Int]) throws -> Tensor {
        try Tensor.validate(newShape)
        guard newShape.reduce(1, *) == count else {
            throw TensorError.shapeMismatch("cannot reshape \(shape) to \(newShape)")
        }
        return Tensor(storage: storage, offset: offset, shape: newShape)
    }

    /// Rows `range` of the outermost axis (no copy).
    public func slice(_ range: Range<Int>) throws -> Tensor {
        guard range.lowerBound >= 0, range.upperBound <= shape[0], !range.isEmpty else {
            throw TensorError.shapeMismatch("slice \(range) out of 0..<\(shape[0])")
        }
        let inner = shape.dropFirst().reduce(1, *)
        var newShape = shape
        newShape[0] = range.count
        return Tensor(storage: storage, offset: offset + range.lowerBound * inner, shape: newShape)
    }

    /// Calls `body` with this tensor's elements (read-only).
    @inlinable
    public func withUnsafeBufferPointer<R>(_ body: (UnsafeBufferPointer<Float>) throws -> R) rethrows -> R {
        try body(UnsafeBufferPointer(start: storage.buffer.baseAddress! + offset, count: count))
    }

    /// Calls `body` with this tensor's elements for writing. Writes are visible to every view
    /// of the same storage.
    @inlinable
    public func withUnsafeMutableBufferPointer<R>(_ body: (UnsafeMutableBufferPointer<Float>) throws -> R) rethrows -> R {
        try body(UnsafeMutableBufferPointer(start: storage.buffer.baseAddress! + offset, count: count))
    }

    /// A copy of the elements as an array (for tests and small tensors; not for hot paths).
    public var scalars: [Float] { withUnsafeBufferPointer { Array($0) } }

    /// Element at a multi-dimensional index (bounds-checked; for tests and small tensors).
    public subscript(index: Int...) -> Float {
        get { withUnsafeBufferPointer { $0[flatIndex(index)] } }
        nonmutating set { let i = flatIndex(index); withUnsafeMutableBufferPointer { $0[i] = newValue } }
    }

    func flatIndex(_ index: [Int]) -> Int {
        precondition(index.count == shape.count, "index \(index) has the wrong rank for shape \(shape)")
        var flat = 0
        for (axis, i) in index.enumerated() {
            precondition(i >= 0 && i < shape[axis], "index \(index) out of bounds for shape \(shape)")
            flat = flat * shape[axis] + i
        }
        return flat
    }
}
