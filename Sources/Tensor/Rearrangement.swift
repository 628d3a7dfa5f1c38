/// Kernels that move elements without arithmetic: zero padding, depth-to-space and concatenation.
public enum Rearrangement {}

extension Rearrangement {
    /// Copies `input` into `output` with `before[i]` zeros before and the rest after along each
    /// axis `i` (`output.shape[i] ≥ input.shape[i] + before[i]`): TFLite's `PAD` with zeros.
    ///
    /// The padding-free trailing axes are copied as one contiguous run per index of the others.
    ///
    /// - Throws: ``TensorError/shapeMismatch(_:)`` when the ranks differ or an axis does not fit.
    public static func zeroPad(_ input: Tensor, before: [Int], into output: Tensor) throws {
        let rank = input.rank
        guard output.rank == rank, before.count == rank,
              (0..<rank).allSatisfy({ before[$0] >= 0 && input.shape[$0] + before[$0] <= output.shape[$0] }) else {
            throw TensorError.shapeMismatch("zero padding \(input.shape) by \(before) before into \(output.shape)")
        }
        try output.requireDisjoint(from: input, "pad output")
        // Axes after `last` are neither padded nor cut: one run of `run` floats per index of the rest.
        var last = rank - 1
        while last > 0 && before[last] == 0 && output.shape[last] == input.shape[last] { last -= 1 }
        let run = input.shape[(last + 1)...].reduce(1, *) * input.shape[last]
        var outStrides = [Int](repeating: 1, count: rank)
        for axis in stride(from: rank - 2, through: 0, by: -1) { outStrides[axis] = outStrides[axis + 1] * output.shape[axis + 1] }
        let outer = Array(input.shape[..<last])
        let runs = outer.reduce(1, *)
        var start = 0
        for axis in 0..<rank { start += before[axis] * outStrides[axis] }
        withExtendedLifetime((input, output)) {
            let src = input.basePointer, dst = output.mutableBasePointer
            dst.update(repeating: 0, count: output.count)
            var index = [Int](repeating: 0, count: outer.count)
            for r in 0..<runs {
                var target = start
                for axis in 0..<outer.count { target += index[axis] * outStrides[axis] }
                (dst + target).update(from: src + r * run, count: run)
                var axis = outer.count - 1
                while axis >= 0 {
                    index[axis] += 1
                    if index[axis] < outer[axis] { break }
                    index[axis] = 0
                    axis -= 1
                }
            }
        }
    }

    /// TF `DEPTH_TO_SPACE` in DCR order: `[H, W, b²·C]` into `[H·b, W·b, C]` with
    /// `out[h·b + i, w·b + j, c] = in[h, w, (i·b + j)·C + c]`.
    ///
    /// - Throws: ``TensorError/shapeMismatch(_:)`` when the shapes do not correspond.
    public static func depthToSpace(_ input: Tensor, blockSize b: Int, into output: Tensor) throws {
        try input.requireRank(3, "depth-to-space input")
        let (h, w, cb) = (input.shape[0], input.shape[1], input.shape[2])
        guard b >= 1, cb % (b * b) == 0 else {
            throw TensorError.shapeMismatch("depth-to-space block \(b) of \(input.shape): channels must be a multiple of \(b * b)")
        }
        let c = cb / (b * b)
        try output.requireShape([h * b, w * b, c], "depth-to-space output")
        try output.requireDisjoint(from: input, "depth-to-space output")
        withExtendedLifetime((input, output)) {
            let src = input.basePointer, dst = output.mutableBasePointer
            for y in 0..<h {
                for x in 0..<w {
                    let pixel = src + (y * w + x) * cb
                    for i in 0..<b {
                        let row = dst + ((y * b + i) * w * b + x * b) * c
                        // The b blocks of one output row are contiguous in both.
                        row.update(from: pixel + i * b * c, count: b * c)
                    }
                }
            }
        }
    }

    /// Concatenates `parts` along `axis` into `output`: every part has `output`'s shape except
    /// along `axis`, whose sizes add up to `output`'s.
    ///
    /// - Throws: ``TensorError/shapeMismatch(_:)`` when the shapes do not fit together.
    public static func concatenate(_ parts: [Tensor], axis: Int, into output: Tensor) throws {
        let rank = output.rank
        guard !parts.isEmpty, (0..<rank).contains(axis),
              parts.allSatisfy({ part in part.rank == rank && (0..<rank).allSatisfy { i in i == axis || part.shape[i] == output.shape[i] } }),
              parts.reduce(0, { $0 + $1.shape[axis] }) == output.shape[axis] else {
            throw TensorError.shapeMismatch("concatenating \(parts.map(\.shape)) along axis \(axis) into \(output.shape)")
        }
        for part in parts { try output.requireDisjoint(from: part, "concatenation output") }
        let outer = output.shape[..<axis].reduce(1, *)
        let outputRun = output.shape[axis...].reduce(1, *)
        withExtendedLifetime((parts, output)) {
            let dst = output.mutableBasePointer
            var offset = 0
            for part in parts {
                let run = part.shape[axis...].reduce(1, *), src = part.basePointer
                for o in 0..<outer { (dst + o * outputRun + offset).update(from: src + o * run, count: run) }
                offset += run
            }
        }
    }
}
