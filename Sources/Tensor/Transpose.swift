extension Rearrangement {
    /// `numpy.transpose(input, permutation)` into `output`: output axis `i` is input axis
    /// `permutation[i]`, both row-major.
    ///
    /// Axes of size 1 are dropped first and neighbouring axes that stay neighbours merged, so
    /// the work is done on the smallest equivalent transpose (a Create ML `[1, C, T, J]` →
    /// `[1, J, T, C]` is the 3-D `[C, T, J]` → `[J, T, C]`); a permutation that keeps the order is
    /// one copy. Where the input's contiguous axis is not the output's last, reading along the
    /// output's last axis would stride through memory, so those two axes are moved in blocks: a
    /// block's input lines stay in cache while each output row is written contiguously.
    ///
    /// - Throws: ``TensorError/shapeMismatch(_:)`` when `permutation` is not a permutation of the
    ///   input's axes or `output` does not have the permuted shape.
    public static func transpose(_ input: Tensor, permutation: [Int], into output: Tensor) throws {
        guard permutation.count == input.rank, Set(permutation) == Set(0..<input.rank) else {
            throw TensorError.shapeMismatch("transpose permutation \(permutation) of \(input.shape)")
        }
        try output.requireShape(permutation.map { input.shape[$0] }, "transpose output")
        try output.requireDisjoint(from: input, "transpose output")
        let (shape, order) = Self.reducedTranspose(shape: input.shape, permutation: permutation)
        withExtendedLifetime((input, output)) {
            let src = input.basePointer, dst = output.mutableBasePointer
            guard order != Array(order.indices) else {
                dst.update(from: src, count: input.count)
                return
            }
            transposeReduced(src, shape: shape, permutation: order, into: dst)
        }
    }

    /// The same transpose with size-1 axes dropped and runs of axes that stay adjacent and in
    /// order merged: `(input shape, permutation)` of the reduced problem (at least one axis).
    static func reducedTranspose(shape: [Int], permutation: [Int]) -> (shape: [Int], permutation: [Int]) {
        let kept = permutation.filter { shape[$0] != 1 }
        guard !kept.isEmpty else { return ([1], [0]) }
        // Groups of input axes that the output reads consecutively and in order.
        var groups: [[Int]] = []
        for axis in kept {
            if let last = groups.last?.last, axis == nextKept(after: last, shape) { groups[groups.count - 1].append(axis) } else { groups.append([axis]) }
        }
        // Input order of the groups gives the reduced input shape; the output order the permutation.
        let byInput = groups.indices.sorted { groups[$0][0] < groups[$1][0] }
        let reducedShape = byInput.map { groups[$0].reduce(1) { $0 * shape[$1] } }
        var position = [Int](repeating: 0, count: groups.count)
        for (inputIndex, group) in byInput.enumerated() { position[group] = inputIndex }
        return (reducedShape, groups.indices.map { position[$0] })
    }

    /// The next input axis after `axis` whose size is not 1 (nil: none).
    private static func nextKept(after axis: Int, _ shape: [Int]) -> Int? {
        var next = axis + 1
        while next < shape.count && shape[next] == 1 { next += 1 }
        return next < shape.count ? next : nil
    }

    /// The transpose of a reduced problem (no size-1 axis, not the identity): an odometer over the
    /// output's axes but the last, with the input's contiguous axis moved in blocks when it is not
    /// the output's last.
    private static func transposeReduced(_ source: UnsafePointer<Float>, shape: [Int], permutation: [Int],
                                         into target: UnsafeMutablePointer<Float>) {
        let rank = shape.count
        let outShape = permutation.map { shape[$0] }
        var inStrides = [Int](repeating: 1, count: rank), outStrides = [Int](repeating: 1, count: rank)
        for axis in stride(from: rank - 2, through: 0, by: -1) {
            inStrides[axis] = inStrides[axis + 1] * shape[axis + 1]
            outStrides[axis] = outStrides[axis + 1] * outShape[axis + 1]
        }
        let stepOf = permutation.map { inStrides[$0] }
        let lastAxis = rank - 1, last = outShape[lastAxis], lastStep = stepOf[lastAxis]
        // The output axis that reads the input's contiguous axis, unless it is the output's last
        // too (only outer axes moved: each output row is one contiguous input run).
        let contiguous = permutation.firstIndex(of: rank - 1).flatMap { $0 != lastAxis ? $0 : nil }
        let walked = (0..<lastAxis).filter { $0 != contiguous }
        var index = [Int](repeating: 0, count: rank)
        var from = 0, to = 0
        while true {
            if let tiled = contiguous {
                // Output (r, j) ← input r + j·lastStep, in blocks of `block` values of the last axis.
                let rows = outShape[tiled], rowStep = outStrides[tiled]
                let block = 64
                for j0 in Swift.stride(from: 0, to: last, by: block) {
                    let j1 = min(j0 + block, last)
                    for r in 0..<rows {
                        let row = target + to + r * rowStep, column = source + from + r
                        for j in j0..<j1 { row[j] = column[j * lastStep] }
                    }
                }
            } else if lastStep == 1 {
                (target + to).update(from: source + from, count: last)
            } else {
                for j in 0..<last { target[to + j] = source[from + j * lastStep] }
            }
            // Next position of the walked axes (innermost first).
            var carried = true
            for axis in walked.reversed() {
                index[axis] += 1
                from += stepOf[axis]
                to += outStrides[axis]
                if index[axis] < outShape[axis] { carried = false; break }
                from -= stepOf[axis] * outShape[axis]
                to -= outStrides[axis] * outShape[axis]
                index[axis] = 0
            }
            if carried { return }
        }
    }

    /// The slice `start ..< start + output.shape[axis]` of `input` along `axis` (every other axis
    /// whole): one split part of a Core ML `splitND`, ONNX `Slice` with one axis.
    ///
    /// - Throws: ``TensorError/shapeMismatch(_:)`` when `output` is not `input`'s shape with that
    ///   axis shortened to a range inside it.
    public static func slice(_ input: Tensor, axis: Int, start: Int, into output: Tensor) throws {
        guard (0..<input.rank).contains(axis), output.rank == input.rank,
              (0..<input.rank).allSatisfy({ $0 == axis || input.shape[$0] == output.shape[$0] }),
              start >= 0, start + output.shape[axis] <= input.shape[axis] else {
            throw TensorError.shapeMismatch("slice of \(input.shape) along axis \(axis) from \(start) into \(output.shape)")
        }
        try output.requireDisjoint(from: input, "slice output")
        let outer = input.shape[..<axis].reduce(1, *), inner = input.shape[(axis + 1)...].reduce(1, *)
        let run = output.shape[axis] * inner, inputRun = input.shape[axis] * inner
        withExtendedLifetime((input, output)) {
            let src = input.basePointer + start * inner, dst = output.mutableBasePointer
            for o in 0..<outer where run > 0 { (dst + o * run).update(from: src + o * inputRun, count: run) }
        }
    }
}
