/// The layers that only move values: transpose, reshape, squeeze / expandDims, split, concat,
/// padding, gather, getShape. Each is NumPy's operation of the same name on row-major blobs
/// (``CoreMLOperation`` states the Core ML specifics); a misfit throws
/// ``CoreMLModelError/layerFailed(layer:detail:)`` naming the layer.
enum CoreMLLayoutOps {
    static func fail(_ layer: String, _ detail: String) -> CoreMLModelError { .layerFailed(layer: layer, detail: detail) }

    /// `numpy.transpose(x, axes)`: output axis `i` is input axis `axes[i]`.
    ///
    /// An odometer walks the output in order. Where the input's contiguous axis is not the output's
    /// last (Create ML's `[0, 3, 2, 1]` swaps channels and joints), reading along the output's last
    /// axis would stride through memory, so the two axes are moved in square tiles instead: each
    /// tile reads input rows and writes output rows that stay in cache.
    static func transpose(_ x: CoreMLArray, axes: [Int], layer: String) throws -> CoreMLArray {
        guard axes.count == x.rank, Set(axes) == Set(0..<x.rank) else {
            throw fail(layer, "transpose axes \(axes) are not a permutation of input \(x.shape)'s axes")
        }
        let shape = axes.map { x.shape[$0] }
        guard x.count > 0, let last = shape.last else { return CoreMLArray(shape: shape, values: x.values) }
        let inStrides = CoreMLArray.strides(of: x.shape)
        let stepOf = axes.map { inStrides[$0] }
        let outStrides = CoreMLArray.strides(of: shape)
        let lastAxis = shape.count - 1
        // The output axis that reads the input's contiguous axis (a size-1 axis never matters).
        let contiguous = axes.firstIndex(of: x.rank - 1).flatMap { shape[$0] > 1 && $0 != lastAxis ? $0 : nil }
        let out = [Float](unsafeUninitializedCapacity: x.count) { dst, initialized in
            x.values.withUnsafeBufferPointer { src in
                let source = src.baseAddress!, target = dst.baseAddress!
                // The odometer's axes: every output axis but the last, and but `contiguous` (tiled below).
                let walked = (0..<lastAxis).filter { $0 != contiguous }
                var index = [Int](repeating: 0, count: shape.count)
                var from = 0, to = 0
                var done = false
                while !done {
                    if let tiled = contiguous {
                        // Output (r, j) ← input r + j·lastStep, in blocks of `block` values of the
                        // last axis: the block's input lines stay in cache while every row `r`
                        // reads them, and each output row is written contiguously.
                        let rows = shape[tiled], rowStep = outStrides[tiled], lastStep = stepOf[lastAxis]
                        let block = 64
                        for j0 in stride(from: 0, to: last, by: block) {
                            let j1 = min(j0 + block, last)
                            for r in 0..<rows {
                                let row = target + to + r * rowStep, column = source + from + r
                                for j in j0..<j1 { (row + j).initialize(to: column[j * lastStep]) }
                            }
                        }
                    } else {
                        let lastStep = stepOf[lastAxis]
                        for j in 0..<last { (target + to + j).initialize(to: source[from + j * lastStep]) }
                    }
                    // Next position of the walked axes (innermost first).
                    done = true
                    for axis in walked.reversed() {
                        index[axis] += 1
                        from += stepOf[axis]
                        to += outStrides[axis]
                        if index[axis] < shape[axis] { done = false; break }
                        from -= stepOf[axis] * shape[axis]
                        to -= outStrides[axis] * shape[axis]
                        index[axis] = 0
                    }
                }
            }
            initialized = x.count
        }
        return CoreMLArray(shape: shape, values: out)
    }

    /// Row-major reshape to `target`, where one −1 takes the remaining size.
    static func reshape(_ x: CoreMLArray, to target: [Int], layer: String) throws -> CoreMLArray {
        let inferred = target.filter { $0 == -1 }.count
        let known = CoreMLArray.checkedCount(target.filter { $0 != -1 }) ?? 0
        guard inferred <= 1, target.allSatisfy({ $0 >= 1 || $0 == -1 }), known > 0, x.count % known == 0,
              inferred == 1 || known == x.count else {
            throw fail(layer, "cannot reshape \(x.shape) (\(x.count) values) to \(target)")
        }
        return CoreMLArray(shape: target.map { $0 == -1 ? x.count / known : $0 }, values: x.values)
    }

    /// `numpy.expand_dims`: each axis (negative: counted from the end of the output) becomes size 1.
    static func expandDims(_ x: CoreMLArray, axes: [Int], layer: String) throws -> CoreMLArray {
        let rank = x.rank + axes.count
        let resolved = axes.compactMap { CoreMLArray.resolve($0, rank: rank) }
        guard resolved.count == axes.count, Set(resolved).count == axes.count else {
            throw fail(layer, "expandDims axes \(axes) do not fit input \(x.shape)")
        }
        var rest = x.shape.makeIterator()
        let shape = (0..<rank).map { resolved.contains($0) ? 1 : rest.next()! }
        return CoreMLArray(shape: shape, values: x.values)
    }

    /// `numpy.squeeze`: the listed axes (all size-1 axes when `all`) are removed; each must be 1.
    static func squeeze(_ x: CoreMLArray, axes: [Int], all: Bool, layer: String) throws -> CoreMLArray {
        let resolved = all ? x.shape.indices.filter { x.shape[$0] == 1 } : axes.compactMap { CoreMLArray.resolve($0, rank: x.rank) }
        guard resolved.count == (all ? resolved.count : axes.count), resolved.allSatisfy({ x.shape[$0] == 1 }) else {
            throw fail(layer, "cannot squeeze axes \(axes) of \(x.shape)")
        }
        return CoreMLArray(shape: x.shape.indices.filter { !resolved.contains($0) }.map { x.shape[$0] }, values: x.values)
    }

    /// Splits along `axis` into the given sizes (or `count` equal parts).
    static func split(_ x: CoreMLArray, axis: Int, count: Int, sizes: [Int], layer: String) throws -> [CoreMLArray] {
        guard let a = CoreMLArray.resolve(axis, rank: x.rank) else { throw fail(layer, "split axis \(axis) outside \(x.shape)") }
        let (outer, size, inner) = x.split(around: a)
        let parts = sizes.isEmpty && count > 0 && size % count == 0 ? [Int](repeating: size / count, count: count) : sizes
        guard !parts.isEmpty, parts.reduce(0, +) == size, parts.allSatisfy({ $0 > 0 }) else {
            throw fail(layer, "cannot split axis \(a) of \(x.shape) into \(sizes.isEmpty ? "\(count) equal parts" : "\(sizes)")")
        }
        var start = 0
        return parts.map { part in
            // One copy per outer index straight between the buffers (slices would retain and
            // release the array on each of them).
            let run = part * inner
            let values = [Float](unsafeUninitializedCapacity: outer * run) { dst, initialized in
                x.values.withUnsafeBufferPointer { src in
                    guard run > 0 else { return }
                    for o in 0..<outer {
                        (dst.baseAddress! + o * run).initialize(from: src.baseAddress! + (o * size + start) * inner, count: run)
                    }
                }
                initialized = outer * run
            }
            start += part
            var shape = x.shape
            shape[a] = part
            return CoreMLArray(shape: shape, values: values)
        }
    }

    /// Concatenation along `axis`. Inputs of lower rank get leading 1s first (see ``CoreMLOperation``).
    static func concat(_ inputs: [CoreMLArray], axis: Int, layer: String) throws -> CoreMLArray {
        let rank = inputs.map(\.rank).max() ?? 0
        let aligned = inputs.map { CoreMLArray(shape: [Int](repeating: 1, count: rank - $0.rank) + $0.shape, values: $0.values) }
        guard let first = aligned.first, let a = CoreMLArray.resolve(axis, rank: rank) else {
            throw fail(layer, "concat axis \(axis) outside inputs \(inputs.map(\.shape))")
        }
        for input in aligned where input.shape.indices.contains(where: { $0 != a && input.shape[$0] != first.shape[$0] }) {
            throw fail(layer, "cannot concatenate \(inputs.map(\.shape)) along axis \(a)")
        }
        let outer = first.split(around: a).outer
        var shape = first.shape
        shape[a] = aligned.map { $0.shape[a] }.reduce(0, +)
        // Each input's values per outer index: one contiguous run.
        let runs = aligned.map { input -> Int in
            let (_, size, inner) = input.split(around: a)
            return size * inner
        }
        let total = outer * runs.reduce(0, +)
        let values = [Float](unsafeUninitializedCapacity: total) { dst, initialized in
            initialized = total
            guard total > 0, var to = dst.baseAddress else { return }
            for o in 0..<outer {
                for (input, run) in zip(aligned, runs) where run > 0 {
                    input.values.withUnsafeBufferPointer { to.initialize(from: $0.baseAddress! + o * run, count: run) }
                    to += run
                }
            }
        }
        return CoreMLArray(shape: shape, values: values)
    }

    /// Constant padding of the last two axes.
    static func pad(_ x: CoreMLArray, top: Int, bottom: Int, left: Int, right: Int, value: Float, layer: String) throws -> CoreMLArray {
        guard x.rank >= 2 else { throw fail(layer, "padding needs at least 2 axes, got \(x.shape)") }
        let (h, w) = (x.shape[x.rank - 2], x.shape[x.rank - 1])
        let (oh, ow) = (h + top + bottom, w + left + right)
        let planes = x.count / max(h * w, 1)
        var out = [Float](repeating: value, count: planes * oh * ow)
        for plane in 0..<planes {
            for y in 0..<h {
                let from = (plane * h + y) * w, to = (plane * oh + y + top) * ow + left
                out.replaceSubrange(to..<(to + w), with: x.values[from..<(from + w)])
            }
        }
        return CoreMLArray(shape: Array(x.shape.dropLast(2)) + [oh, ow], values: out)
    }

    /// `numpy.take(data, indices, axis)`; output shape = data's axes before `axis`, the indices'
    /// shape, data's axes after `axis`.
    static func gather(_ data: CoreMLArray, _ indices: CoreMLArray, axis: Int, layer: String) throws -> CoreMLArray {
        guard let a = CoreMLArray.resolve(axis, rank: data.rank) else { throw fail(layer, "gather axis \(axis) outside \(data.shape)") }
        let (outer, size, inner) = data.split(around: a)
        var picks: [Int] = []
        for value in indices.values {
            // Int(exactly:) first: a NaN, infinite or huge index must be an error, not a trap.
            guard let index = Int(exactly: value.rounded()), (-size..<size).contains(index) else {
                throw fail(layer, "gather index \(value) outside axis of size \(size)")
            }
            picks.append(index < 0 ? index + size : index)
        }
        var values = [Float]()
        values.reserveCapacity(outer * picks.count * inner)
        for o in 0..<outer {
            for pick in picks {
                let from = (o * size + pick) * inner
                values.append(contentsOf: data.values[from..<(from + inner)])
            }
        }
        return CoreMLArray(shape: Array(data.shape[..<a]) + indices.shape + Array(data.shape[(a + 1)...]), values: values)
    }
}
