/// The layers that only move values: transpose, reshape, squeeze / expandDims, split, concat,
/// padding, gather, getShape. Each is NumPy's operation of the same name on row-major blobs
/// (``CoreMLOperation`` states the Core ML specifics); a misfit throws
/// ``CoreMLModelError/layerFailed(layer:detail:)`` naming the layer.
enum CoreMLLayoutOps {
    static func fail(_ layer: String, _ detail: String) -> CoreMLModelError { .layerFailed(layer: layer, detail: detail) }

    /// `numpy.transpose(x, axes)`: output axis `i` is input axis `axes[i]`.
    static func transpose(_ x: CoreMLArray, axes: [Int], layer: String) throws -> CoreMLArray {
        guard axes.count == x.rank, Set(axes) == Set(0..<x.rank) else {
            throw fail(layer, "transpose axes \(axes) are not a permutation of input \(x.shape)'s axes")
        }
        let shape = axes.map { x.shape[$0] }
        let inStrides = CoreMLArray.strides(of: x.shape)
        let stepOf = axes.map { inStrides[$0] }
        guard x.count > 0, let last = shape.last else { return CoreMLArray(shape: shape, values: x.values) }
        // Runs along the output's last axis (input step `lastStep`), an odometer over the other axes.
        let lastStep = stepOf[shape.count - 1]
        var index = [Int](repeating: 0, count: shape.count)
        let out = [Float](unsafeUninitializedCapacity: x.count) { dst, initialized in
            x.values.withUnsafeBufferPointer { src in
                var from = 0, to = 0
                while to < x.count {
                    for j in 0..<last { (dst.baseAddress! + to + j).initialize(to: src[from + j * lastStep]) }
                    to += last
                    var axis = shape.count - 2
                    while axis >= 0 {
                        index[axis] += 1
                        from += stepOf[axis]
                        if index[axis] < shape[axis] { break }
                        from -= stepOf[axis] * shape[axis]
                        index[axis] = 0
                        axis -= 1
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
            var values = [Float]()
            values.reserveCapacity(outer * part * inner)
            for o in 0..<outer {
                let from = (o * size + start) * inner
                values.append(contentsOf: x.values[from..<(from + part * inner)])
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
        var values = [Float]()
        values.reserveCapacity(shape.reduce(1, *))
        for o in 0..<outer {
            for input in aligned {
                let (_, size, inner) = input.split(around: a)
                values.append(contentsOf: input.values[(o * size * inner)..<((o + 1) * size * inner)])
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
