import PoseCore
import Tensor

/// Horizontal-flip test-time augmentation: run the network on the frame and on its mirror image,
/// mirror the second set of heads back and average the two.
///
/// For input sizes `16k + 1` (and output stride 16, or `8k + 1` with stride 8) the output grid
/// mirrors exactly onto itself: cell `x` sits at input pixel `x·stride` and its mirror at
/// `(W−1−x)·stride`. Mirroring the heads swaps left and right parts (and skeleton edges) and
/// negates every x component (offsets and displacements).
enum FlipAveraging {
    /// `part ↔ mirrored part` by channel (PoseCore's one mirror table, ``BodyPart/mirrored``).
    static let mirroredPart: [Int] = BodyPart.allCases.map(\.mirrored.rawValue)

    /// `edge ↔ mirrored edge` of ``Skeleton/treeEdges`` (``Skeleton/mirroredTreeEdges``).
    static let mirroredEdge: [Int] = Skeleton.mirroredTreeEdges

    /// Mirrors an `[H, W, C]` image tensor left to right, in place.
    static func mirrorInPlace(_ image: Tensor) {
        let (h, w, c) = (image.shape[0], image.shape[1], image.shape[2])
        image.withUnsafeMutableBufferPointer { p in
            for y in 0..<h {
                for x in 0..<(w / 2) {
                    let a = (y * w + x) * c, b = (y * w + (w - 1 - x)) * c
                    for k in 0..<c { p.swapAt(a + k, b + k) }
                }
            }
        }
    }

    /// For each head (heatmap, offsets, fwd, bwd displacements), the channel of the mirrored
    /// head that feeds each channel, and its sign (x components flip sign).
    static let channelMaps: [(sources: [Int], signs: [Float])] = {
        let parts = BodyPart.count, edges = Skeleton.treeEdges.count
        let heatmap = (mirroredPart, [Float](repeating: 1, count: parts))
        let offsets = (mirroredPart + mirroredPart.map { parts + $0 },
                       [Float](repeating: 1, count: parts) + [Float](repeating: -1, count: parts))
        let displacements = (mirroredEdge + mirroredEdge.map { edges + $0 },
                             [Float](repeating: 1, count: edges) + [Float](repeating: -1, count: edges))
        return [heatmap, offsets, displacements, displacements]
    }()

    /// ``channelMaps`` laid end to end over the packed heads' 115 channels (``PoseNetOutput/heads``):
    /// each head's sources shifted to where the head starts.
    static let packedChannelMap: (sources: [Int], signs: [Float]) = {
        let heads = [PoseNetOutput.heatmapChannels, PoseNetOutput.offsetChannels,
                     PoseNetOutput.displacementFwdChannels, PoseNetOutput.displacementBwdChannels]
        return (zip(channelMaps, heads).flatMap { map, channels in map.sources.map { channels.lowerBound + $0 } },
                channelMaps.flatMap(\.signs))
    }()

    /// `target = (saved + mirror(flipped)) / 2` for one `[H, W, C]` head, where channel `ch` of
    /// the mirrored head is channel `sources[ch]` of `flipped` at the mirrored column, times `signs[ch]`.
    static func average(_ saved: Tensor, flipped: Tensor, into target: Tensor, sources: [Int], signs: [Float]) {
        let (h, w, c) = (target.shape[0], target.shape[1], target.shape[2])
        target.withUnsafeMutableBufferPointer { t in
            saved.withUnsafeBufferPointer { a in
                flipped.withUnsafeBufferPointer { f in
                    sources.withUnsafeBufferPointer { sources in
                        signs.withUnsafeBufferPointer { signs in
                            for y in 0..<h {
                                for x in 0..<w {
                                    let p = (y * w + x) * c, q = (y * w + (w - 1 - x)) * c
                                    for ch in 0..<c { t[p + ch] = 0.5 * (a[p + ch] + signs[ch] * f[q + sources[ch]]) }
                                }
                            }
                        }
                    }
                }
            }
        }
    }
}

extension PoseNetModel {
    /// Runs the network on ``input`` and on its mirror image and leaves the averaged heads in
    /// ``heads`` (twice the work of ``run(padding:)``; restores ``input``). More accurate on
    /// people seen from the side and on occluded parts. `padding` is ``input``'s band, as for
    /// ``run(padding:)``; the mirror image's is mirrored with it.
    public func runWithFlipAveraging(padding: PaddingBand? = nil) throws {
        if flipScratch == nil { flipScratch = try Tensor(zeros: heads.shape) }
        let saved = flipScratch!
        try run(padding: padding)
        saved.withUnsafeMutableBufferPointer { d in heads.withUnsafeBufferPointer { s in _ = d.update(fromContentsOf: s) } }
        FlipAveraging.mirrorInPlace(input)
        defer { FlipAveraging.mirrorInPlace(input) }
        try run(padding: padding.map { $0.mirrored(inputSize: inputSize) })
        // The heads now hold the mirror image's: average them, mirrored back, into the saved ones
        // (not in place: a pixel and its mirror read each other), then copy back.
        let map = FlipAveraging.packedChannelMap
        FlipAveraging.average(saved, flipped: heads, into: saved, sources: map.sources, signs: map.signs)
        heads.withUnsafeMutableBufferPointer { d in saved.withUnsafeBufferPointer { s in _ = d.update(fromContentsOf: s) } }
    }
}

extension PaddingBand {
    /// The band of the left-right mirror image of a square input of side `inputSize`: rows stay,
    /// columns `a..<b` become `inputSize − b..<inputSize − a`.
    func mirrored(inputSize: Int) -> PaddingBand {
        axis == .rows ? self : PaddingBand(axis: .columns, range: (inputSize - range.upperBound)..<(inputSize - range.lowerBound))
    }
}
