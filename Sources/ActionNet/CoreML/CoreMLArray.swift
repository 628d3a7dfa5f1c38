/// A dense float32 N-D array in row-major order: a blob flowing between Core ML layers.
///
/// Core ML's neural-network layers see blobs of any rank (the N-D layer family) with the
/// image-style layers reading the last three axes as `[C, H, W]` and every earlier axis as batch.
/// Unlike ``Tensor`` (rank ≥ 1, NHWC), a blob may be rank 0 and keeps Core ML's axis order, so
/// the graph can follow the model's own shapes layer by layer; the convolutions convert to NHWC
/// only around Tensor's GEMM.
struct CoreMLArray: Sendable, Equatable {
    /// Axis sizes, outermost first (empty: a scalar).
    var shape: [Int]
    /// `shape.reduce(1, *)` values, last axis fastest.
    var values: [Float]

    init(shape: [Int], values: [Float]) {
        precondition(shape.reduce(1, *) == values.count, "CoreMLArray: \(values.count) values for shape \(shape)")
        self.shape = shape
        self.values = values
    }

    init(zeros shape: [Int]) { self.init(shape: shape, values: [Float](repeating: 0, count: shape.reduce(1, *))) }

    /// How many values `shape` holds, or nil when a size is negative or the product overflows
    /// (shapes read from a file or computed by a layer are checked here before any allocation).
    static func checkedCount(_ shape: [Int]) -> Int? {
        var count = 1
        for size in shape {
            guard size >= 0 else { return nil }
            let (product, overflow) = count.multipliedReportingOverflow(by: size)
            guard !overflow else { return nil }
            count = product
        }
        return count
    }

    var rank: Int { shape.count }
    var count: Int { values.count }

    /// Row-major strides: how many values one step along each axis skips.
    static func strides(of shape: [Int]) -> [Int] {
        var strides = [Int](repeating: 1, count: shape.count)
        var step = 1
        for axis in shape.indices.reversed() {
            strides[axis] = step
            step *= shape[axis]
        }
        return strides
    }

    /// `axis` resolved against `rank` (negative counts from the end), or nil when out of range.
    static func resolve(_ axis: Int, rank: Int) -> Int? {
        let resolved = axis < 0 ? axis + rank : axis
        return (0..<rank).contains(resolved) ? resolved : nil
    }

    /// The shape split around `axis`: the product of the axes before it (`outer`), its size, and
    /// the product after it (`inner`): element `(o, a, i)` is at `(o · size + a) · inner + i`.
    func split(around axis: Int) -> (outer: Int, size: Int, inner: Int) {
        (shape[..<axis].reduce(1, *), shape[axis], shape[(axis + 1)...].reduce(1, *))
    }
}
