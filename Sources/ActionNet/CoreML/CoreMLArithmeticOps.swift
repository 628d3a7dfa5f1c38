import Foundation

/// The layers that compute values element by element or along one axis: batchnorm, ReLU, sums
/// and softmax (``CoreMLOperation`` states their axes).
enum CoreMLArithmeticOps {
    /// `x · scale[c] + shift[c]` along axis −3 (`[.., C, H, W]`).
    static func batchnorm(_ x: CoreMLArray, scale: [Float], shift: [Float], layer: String) throws -> CoreMLArray {
        guard x.rank >= 3, x.shape[x.rank - 3] == scale.count else {
            throw CoreMLModelError.layerFailed(layer: layer, detail: "batchnorm over \(scale.count) channels got input \(x.shape)")
        }
        let (_, channels, inner) = x.split(around: x.rank - 3)
        var out = x
        out.values.withUnsafeMutableBufferPointer { v in
            for start in stride(from: 0, to: v.count, by: channels * inner) {
                for c in 0..<channels {
                    let (s, t) = (scale[c], shift[c])
                    for i in (start + c * inner)..<(start + (c + 1) * inner) { v[i] = v[i] * s + t }
                }
            }
        }
        return out
    }

    static func relu(_ x: CoreMLArray) -> CoreMLArray {
        var out = x
        out.values.withUnsafeMutableBufferPointer { v in for i in v.indices { v[i] = max(v[i], 0) } }
        return out
    }

    /// NumPy-broadcast sum of any number of inputs (legacy `add` requires equal shapes, which
    /// broadcasting accepts as well); `alpha` is added when there is one input.
    static func add(_ inputs: [CoreMLArray], alpha: Float, broadcasting: Bool, layer: String) throws -> CoreMLArray {
        guard var sum = inputs.first else { throw CoreMLModelError.layerFailed(layer: layer, detail: "add has no inputs") }
        if inputs.count == 1 {
            sum.values = sum.values.map { $0 + alpha }
            return sum
        }
        for other in inputs.dropFirst() {
            if other.shape == sum.shape {
                sum.values.withUnsafeMutableBufferPointer { v in for i in v.indices { v[i] += other.values[i] } }
                continue
            }
            guard broadcasting else {
                throw CoreMLModelError.layerFailed(layer: layer, detail: "add of unequal shapes \(inputs.map(\.shape))")
            }
            sum = try broadcastSum(sum, other, layer: layer)
        }
        return sum
    }

    /// NumPy broadcasting: shapes aligned at the end; each axis equal or 1 on one side.
    private static func broadcastSum(_ a: CoreMLArray, _ b: CoreMLArray, layer: String) throws -> CoreMLArray {
        let rank = max(a.rank, b.rank)
        let sa = [Int](repeating: 1, count: rank - a.rank) + a.shape, sb = [Int](repeating: 1, count: rank - b.rank) + b.shape
        var shape: [Int] = []
        for (x, y) in zip(sa, sb) {
            guard x == y || x == 1 || y == 1 else {
                throw CoreMLModelError.layerFailed(layer: layer, detail: "cannot broadcast \(a.shape) with \(b.shape)")
            }
            shape.append(max(x, y))
        }
        let (stridesA, stridesB, strides) = (CoreMLArray.strides(of: sa), CoreMLArray.strides(of: sb), CoreMLArray.strides(of: shape))
        let values = (0..<shape.reduce(1, *)).map { flat -> Float in
            var (ia, ib) = (0, 0)
            for axis in 0..<rank {
                let i = flat / strides[axis] % shape[axis]
                ia += (sa[axis] == 1 ? 0 : i) * stridesA[axis]
                ib += (sb[axis] == 1 ? 0 : i) * stridesB[axis]
            }
            return a.values[ia] + b.values[ib]
        }
        return CoreMLArray(shape: shape, values: values)
    }

    /// Softmax along `axis` (max subtracted first; exponentials summed in double).
    static func softmax(_ x: CoreMLArray, axis: Int, layer: String) throws -> CoreMLArray {
        guard let a = CoreMLArray.resolve(axis, rank: x.rank) else {
            throw CoreMLModelError.layerFailed(layer: layer, detail: "softmax axis \(axis) outside input \(x.shape)")
        }
        let (outer, size, inner) = x.split(around: a)
        var out = x
        for o in 0..<outer {
            for i in 0..<inner {
                let at = (0..<size).map { (o * size + $0) * inner + i }
                let peak = at.map { x.values[$0] }.max() ?? 0
                let exps = at.map { Foundation.exp(Double(x.values[$0] - peak)) }
                let total = exps.reduce(0, +)
                for (k, index) in at.enumerated() { out.values[index] = Float(exps[k] / total) }
            }
        }
        return out
    }
}
