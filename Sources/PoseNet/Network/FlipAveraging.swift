import Tensor

/// Horizontal-flip test-time augmentation: run the network on the frame and on its mirror image,
/// mirror the second set of heads back and average the two.
///
/// For input sizes `16k + 1` (and output stride 16, or `8k + 1` with stride 8) the output grid
/// mirrors exactly onto itself: cell `x` sits at input pixel `x·stride` and its mirror at
/// `(W−1−x)·stride`. Mirroring the heads swaps left and right parts (and skeleton edges) and
/// negates every x component (offsets and displacements).
enum FlipAveraging {
    /// `part ↔ mirrored part` (left ↔ right, the nose stays).
    static let mirroredPart: [Int] = BodyPart.allCases.map { part in
        let name = part.name
        if name.hasPrefix("left") { return BodyPart(name: "right" + name.dropFirst(4))!.rawValue }
        if name.hasPrefix("right") { return BodyPart(name: "left" + name.dropFirst(5))!.rawValue }
        return part.rawValue
    }

    /// `edge ↔ mirrored edge` of ``Skeleton/treeEdges``.
    static let mirroredEdge: [Int] = Skeleton.treeEdges.map { edge in
        let parent = mirroredPart[edge.parent.rawValue], child = mirroredPart[edge.child.rawValue]
        return Skeleton.treeEdges.firstIndex { $0.parent.rawValue == parent && $0.child.rawValue == child }!
    }

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

    /// `target = (target + mirror(flipped)) / 2` for one head, where channel `ch` of the mirrored
    /// head comes from channel `source(ch)` of `flipped` at the mirrored column, times `sign(ch)`.
    static func average(_ target: Tensor, flipped: Tensor, source: (Int) -> Int, sign: (Int) -> Float) {
        let (h, w, c) = (target.shape[0], target.shape[1], target.shape[2])
        let sources = (0..<c).map(source), signs = (0..<c).map(sign)
        target.withUnsafeMutableBufferPointer { t in
            flipped.withUnsafeBufferPointer { f in
                for y in 0..<h {
                    for x in 0..<w {
                        let a = (y * w + x) * c, b = (y * w + (w - 1 - x)) * c
                        for ch in 0..<c { t[a + ch] = 0.5 * (t[a + ch] + signs[ch] * f[b + sources[ch]]) }
                    }
                }
            }
        }
    }
}

extension PoseNetModel {
    /// Runs the network on ``input`` and on its mirror image and leaves the averaged heads in
    /// the head tensors (twice the work of ``run()``; restores ``input``). More accurate on
    /// people seen from the side and on occluded parts.
    public func runWithFlipAveraging() throws {
        try run()
        let saved = try [heatmapScores, offsets, displacementsFwd, displacementsBwd].map { head -> Tensor in
            let copy = try Tensor(zeros: head.shape)
            copy.withUnsafeMutableBufferPointer { d in head.withUnsafeBufferPointer { s in _ = d.initialize(from: s) } }
            return copy
        }
        FlipAveraging.mirrorInPlace(input)
        defer { FlipAveraging.mirrorInPlace(input) }
        try run()
        let parts = BodyPart.count, edges = Skeleton.treeEdges.count
        // After the second run the head tensors hold the mirrored heads; average into the saved ones.
        FlipAveraging.average(saved[0], flipped: heatmapScores, source: { FlipAveraging.mirroredPart[$0] }, sign: { _ in 1 })
        FlipAveraging.average(saved[1], flipped: offsets,
                              source: { $0 < parts ? FlipAveraging.mirroredPart[$0] : parts + FlipAveraging.mirroredPart[$0 - parts] },
                              sign: { $0 < parts ? 1 : -1 })
        for (index, head) in [(2, displacementsFwd), (3, displacementsBwd)] {
            FlipAveraging.average(saved[index], flipped: head,
                                  source: { $0 < edges ? FlipAveraging.mirroredEdge[$0] : edges + FlipAveraging.mirroredEdge[$0 - edges] },
                                  sign: { $0 < edges ? 1 : -1 })
        }
        for (head, average) in zip([heatmapScores, offsets, displacementsFwd, displacementsBwd], saved) {
            head.withUnsafeMutableBufferPointer { d in average.withUnsafeBufferPointer { s in _ = d.update(fromContentsOf: s) } }
        }
    }
}
