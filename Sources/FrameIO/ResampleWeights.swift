/// Per-output filter taps for one axis of a separable resize, packed for fast inner loops:
/// output `o` is `Σ_k weights[o·taps + k] · source[first[o] + k]`.
///
/// Built with Pillow's `BILINEAR` convention (`Resample.c`): a triangle filter whose support grows
/// with the downscale factor (so downscaling averages, i.e. antialiases), output pixel `o` centered
/// on source coordinate `(o + 0.5)·scale`, weights normalized over the taps inside the input.
///
/// The input may be *virtually* padded: letterboxing pads the image bottom/right to a square with
/// black before resizing. Taps that land in the padding are dropped; `realSum[o]` keeps the total
/// weight left on real samples, so the padding's share is `1 − realSum[o]` times the pad value.
struct ResampleWeights {
    let outputCount: Int
    /// Taps per output (the widest filter footprint, clipped to the real input size).
    let taps: Int
    /// First real source index of each output's taps; `first[o] + taps ≤ realSize`.
    let first: [Int32]
    /// `outputCount × taps` weights, zero where a tap is unused.
    let weights: [Float]
    /// Sum of each output's weights on real samples (1 inside the image, < 1 near or in the padding).
    let realSum: [Float]
    /// Outputs `0..<activeCount` touch the real image; the rest are pure padding.
    let activeCount: Int

    /// Sparse per-output taps (source index, weight) → packed table.
    init(sparse: [[(index: Int, weight: Double)]], realSize: Int) {
        outputCount = sparse.count
        var span = 1
        for taps in sparse where !taps.isEmpty {
            span = max(span, taps.map(\.index).max()! - taps.map(\.index).min()! + 1)
        }
        taps = min(span, realSize)
        var first = [Int32](repeating: 0, count: outputCount)
        var weights = [Float](repeating: 0, count: outputCount * taps)
        var realSum = [Float](repeating: 0, count: outputCount)
        var active = 0
        for (o, list) in sparse.enumerated() {
            guard let lo = list.map(\.index).min() else { continue }
            active = o + 1
            let start = max(0, min(lo, realSize - taps))
            first[o] = Int32(start)
            var sum = 0.0
            for (i, w) in list {
                weights[o * taps + (i - start)] += Float(w)
                sum += w
            }
            realSum[o] = Float(sum)
        }
        self.first = first
        self.weights = weights
        self.realSum = realSum
        activeCount = active
    }

    /// Pillow `BILINEAR` weights resizing `virtualSize` samples (of which the first `realSize` are
    /// real, the rest padding) to `outputSize`.
    static func pillowBilinear(virtualSize: Int, realSize: Int, outputSize: Int) -> ResampleWeights {
        ResampleWeights(sparse: pillowTaps(virtualSize: virtualSize, realSize: realSize, outputSize: outputSize),
                        realSize: realSize)
    }

    static func pillowTaps(virtualSize: Int, realSize: Int, outputSize: Int) -> [[(index: Int, weight: Double)]] {
        let scale = Double(virtualSize) / Double(outputSize)
        let filterScale = max(scale, 1)
        let support = 1.0 * filterScale  // the triangle filter's support is 1
        return (0..<outputSize).map { o in
            let center = (Double(o) + 0.5) * scale
            let lo = max(Int(center - support + 0.5), 0)
            let hi = min(Int(center + support + 0.5), virtualSize)
            var taps: [(index: Int, weight: Double)] = []
            var total = 0.0
            for x in lo..<max(hi, lo) {
                let w = max(0, 1 - abs((Double(x) - center + 0.5) / filterScale))
                total += w
                taps.append((x, w))
            }
            return taps.compactMap { tap in
                tap.index < realSize && tap.weight > 0 && total > 0 ? (tap.index, tap.weight / total) : nil
            }
        }
    }

    /// The same resize applied to a subsampled plane: luma taps composed with the bilinear
    /// upsampling that places chroma sample `j` at luma position `decimation·j + offset`.
    static func composed(lumaTaps: [[(index: Int, weight: Double)]], chromaCount: Int,
                         decimation: Int, offset: Float) -> ResampleWeights {
        let sparse: [[(index: Int, weight: Double)]] = lumaTaps.map { list in
            var acc: [Int: Double] = [:]
            for (i, w) in list {
                let (j0, j1, f) = YUVToRGB.interpolation(position: (Float(i) - offset) / Float(decimation), count: chromaCount)
                acc[j0, default: 0] += w * Double(1 - f)
                if f > 0 { acc[j1, default: 0] += w * Double(f) }
            }
            return acc.sorted { $0.key < $1.key }.map { (index: $0.key, weight: $0.value) }
        }
        return ResampleWeights(sparse: sparse, realSize: chromaCount)
    }
}
