import ModelGraph

/// Data movement as one permutation: every transpose the mapper makes (a Core ML `transpose`, a
/// change of layout, a `splitND` whose parts one `concat` joins again) goes through
/// ``permute(_:view:permutation:to:name:blob:)``, which folds it into the transpose that made its
/// input when nothing else reads that: ST-GCN's transpose → split → concat → (layout for the
/// convolution) is one copy instead of four.
extension CreateMLGraphMapper {
    /// `value` seen as `view` (row-major, same count), permuted (`view` axis `permutation[i]`
    /// becomes axis `i`) and seen as `shape`: reshape, transpose, reshape, the reshapes free. When
    /// `value` is (a reshape of) a transpose's output that only the layer reading blob `blob` reads,
    /// the two transposes become one from that transpose's input.
    mutating func permute(_ value: ValueID, view: [Int], permutation: [Int], to shape: [Int], name: String, blob: String?) throws -> ValueID {
        // Axes of 1 never matter to a permutation: drop them.
        let kept = view.indices.filter { view[$0] != 1 }
        let squeezedView = kept.map { view[$0] }
        let keptOrder = permutation.filter { view[$0] != 1 }.map { kept.firstIndex(of: $0)! }
        if keptOrder == keptOrder.sorted() { return try reshaped(value, to: shape, name: name) }
        if let blob, let composed = try composed(value, view: squeezedView, permutation: keptOrder, to: shape, name: name, blob: blob) {
            return composed
        }
        let input = try reshaped(value, to: squeezedView, name: name + "/view")
        let moved = node(TransposeOp(permutation: keptOrder), [input], name: name + "/moved", shape: keptOrder.map { squeezedView[$0] })
        return try reshaped(moved, to: shape, name: name)
    }

    /// The permutation folded into the transpose before it (see ``permute(_:view:permutation:to:name:blob:)``),
    /// or nil when `value` is not a fusible transpose's output or `view` does not only split its axes.
    private mutating func composed(_ value: ValueID, view: [Int], permutation: [Int], to shape: [Int], name: String,
                                   blob: String) throws -> ValueID? {
        guard fusing, readCount(of: blob) == 1, !isShared(value) else { return nil }
        var transposed = value
        if let index = producerNode(of: value), node(at: index).operation is ReshapeOp { transposed = node(at: index).inputs[0] }
        guard transposed == value || !isShared(transposed), let index = producerNode(of: transposed),
              let first = node(at: index).operation as? TransposeOp else { return nil }
        let source = node(at: index).inputs[0]
        let sourceShape = self.shape(of: source), outShape = self.shape(of: transposed)
        // Both in terms of axes that are not 1.
        let sourceKept = sourceShape.indices.filter { sourceShape[$0] != 1 }
        let firstOrder = first.permutation.filter { sourceShape[$0] != 1 }.map { sourceKept.firstIndex(of: $0)! }
        let middle = outShape.filter { $0 != 1 }
        // Each axis of the transpose's output is a run of view axes (the view only splits).
        var groups: [[Int]] = []
        var next = 0
        for size in middle {
            var run: [Int] = [], product = 1
            while product < size, next < view.count {
                product *= view[next]
                run.append(next)
                next += 1
            }
            guard product == size else { return nil }
            groups.append(run)
        }
        guard next == view.count else { return nil }
        // Split the source's axes the same way: source axis firstOrder[i] into groups[i]'s sizes.
        var sourceView: [Int] = [], position = [Int](repeating: 0, count: view.count)
        for s in sourceKept.indices {
            let i = firstOrder.firstIndex(of: s)!
            for axis in groups[i] {
                position[axis] = sourceView.count
                sourceView.append(view[axis])
            }
        }
        let order = permutation.map { position[$0] }
        let input = try reshaped(source, to: sourceView, name: name + "/view")
        guard order != order.sorted() else { return try reshaped(input, to: shape, name: name) }
        let moved = node(TransposeOp(permutation: order), [input], name: name + "/moved", shape: order.map { sourceView[$0] })
        return try reshaped(moved, to: shape, name: name)
    }
}
