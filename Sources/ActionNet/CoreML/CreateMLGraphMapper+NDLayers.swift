import ModelGraph
import Tensor

/// The N-D layers (transpose, split, concat, reshape family, gather): NumPy's operations on the
/// blob as Core ML sees it, each mapped onto the value's layout; on constants, done here.
extension CreateMLGraphMapper {
    /// The axes a value of `layout` holds for a rank-`rank` blob, the leading axes of 1 a
    /// channels-last value leaves out first: a reshape away from the value (no work).
    static func fullAxes(_ layout: CreateMLBlob.Layout, rank: Int) -> [Int] {
        layout == .channelsLast ? Array(0..<(rank - 3)) + CreateMLBlob.heldAxes(layout, rank: rank) : Array(0..<rank)
    }

    /// A constant blob's data as a tensor of its shape (a scalar as `[1]`).
    static func tensor(_ shape: [Int], _ data: [Float]) throws -> Tensor {
        try Tensor(shape: shape.isEmpty ? [1] : shape, values: data)
    }

    mutating func transpose(_ x: CreateMLBlob, axes: [Int], layer: CoreMLLayer, name: String) throws -> CreateMLBlob {
        let r = x.rank
        guard axes.count == r, Set(axes) == Set(0..<r) else {
            throw CoreMLModelError.layerFailed(layer: layer.name, detail: "transpose axes \(axes) are not a permutation of input \(x.shape)'s axes")
        }
        let shape = axes.map { x.shape[$0] }
        if case .constant(let data) = x.storage {
            let out = try Tensor(zeros: shape)
            try Rearrangement.transpose(try Self.tensor(x.shape, data), permutation: axes, into: out)
            return CreateMLBlob(shape: shape, storage: .constant(out.scalars))
        }
        let inLayout = Self.layout(of: x)
        let outLayout: CreateMLBlob.Layout = inLayout == .channelsLast && CreateMLBlob.fitsChannelsLast(shape) ? .channelsLast : .rowMajor
        let id = try value(x, in: inLayout, name: layer.inputs[0], layer: layer.name)
        // Both values with every Core ML axis (leading 1s back): output axis i of the full output
        // value holds Core ML output axis outFull[i], which is input axis axes[outFull[i]].
        let inFull = Self.fullAxes(inLayout, rank: r), outFull = Self.fullAxes(outLayout, rank: r)
        let permutation = outFull.map { inFull.firstIndex(of: axes[$0])! }
        let inFullShape = inFull.map { x.shape[$0] }
        let held = CreateMLBlob.heldAxes(outLayout, rank: r).map { shape[$0] }
        let out = try permute(id, view: inFullShape, permutation: permutation, to: held, name: name, blob: layer.inputs[0])
        return CreateMLBlob(shape: shape, storage: .value(out == id ? alias(id) : out, outLayout))
    }

    /// A `splitND` into equal parts that one concat layer alone joins again, in order, along
    /// another axis: one permutation, the parts never made. Returns the concat layer and its
    /// output blob, or nil when the layers are not that (then each is mapped on its own).
    mutating func splitJoined(_ x: CreateMLBlob, split layer: CoreMLLayer, axis: Int, count: Int,
                              sizes: [Int]) throws -> (CoreMLLayer, CreateMLBlob)? {
        guard fusing, layer.outputs.count > 1, layer.outputs.allSatisfy({ readCount(of: $0) == 1 }),
              let join = readers(of: layer.outputs[0]).first, join.inputs == layer.outputs,
              let a = CreateMLShapes.resolve(axis, rank: x.rank) else { return nil }
        if case .constant = x.storage { return nil }
        let joinAxis: Int
        switch join.operation {
        case .concat where x.rank >= 3: joinAxis = -3
        case .concatND(let axis): joinAxis = axis
        default: return nil
        }
        let n = layer.outputs.count
        guard let b = CreateMLShapes.resolve(joinAxis, rank: x.rank), b != a, x.shape[a] % n == 0,
              sizes.isEmpty || sizes == [Int](repeating: x.shape[a] / n, count: n) else { return nil }
        let layout = Self.layout(of: x)
        guard let pa = Self.heldAxis(a, rank: x.rank, layout), let pb = Self.heldAxis(b, rank: x.rank, layout) else { return nil }
        let id = try value(x, in: layout, name: layer.inputs[0], layer: layer.name)
        let held = self.shape(of: id)
        // The value with the split axis seen as (part, index in part); the output's joined axis
        // is (part, index along it): part k of the split is block k of the join.
        var view = held
        view.replaceSubrange(pa...pa, with: [n, x.shape[a] / n])
        func viewAxis(_ k: Int) -> Int { k < pa ? k : k + 1 }
        let permutation = held.indices.flatMap { k -> [Int] in
            k == pa ? [pa + 1] : k == pb ? [pa, viewAxis(pb)] : [viewAxis(k)]
        }
        var shape = x.shape
        shape[a] /= n
        shape[b] *= n
        let outHeld = CreateMLBlob.heldAxes(layout, rank: x.rank).map { shape[$0] }
        let out = try permute(id, view: view, permutation: permutation, to: outHeld, name: join.outputs[0], blob: layer.inputs[0])
        return (join, CreateMLBlob(shape: shape, storage: .value(out, layout)))
    }

    mutating func split(_ x: CreateMLBlob, axis: Int, count: Int, sizes: [Int], layer: CoreMLLayer) throws -> [CreateMLBlob] {
        func failed(_ detail: String) -> CoreMLModelError { .layerFailed(layer: layer.name, detail: detail) }
        guard let a = CreateMLShapes.resolve(axis, rank: x.rank) else { throw failed("split axis \(axis) outside \(x.shape)") }
        let parts = try CreateMLShapes.parts(of: x.shape[a], count: count, sizes: sizes, failed)
        guard parts.count == layer.outputs.count else { throw failed("\(parts.count) parts for \(layer.outputs.count) outputs") }
        var layout = Self.layout(of: x)
        if Self.heldAxis(a, rank: x.rank, layout) == nil { layout = .rowMajor }
        let constantInput: Tensor?
        if case .constant(let data) = x.storage { constantInput = try Self.tensor(x.shape, data) } else { constantInput = nil }
        let id = constantInput == nil ? try value(x, in: layout, name: layer.inputs[0], layer: layer.name) : nil
        var start = 0
        return try zip(parts, layer.outputs).map { part, name in
            defer { start += part }
            var shape = x.shape
            shape[a] = part
            if let constantInput {
                let out = try Tensor(zeros: shape)
                try Rearrangement.slice(constantInput, axis: a, start: start, into: out)
                return CreateMLBlob(shape: shape, storage: .constant(out.scalars))
            }
            let id = id!, held = Self.heldAxis(a, rank: x.rank, layout)!
            guard part < x.shape[a] else { return CreateMLBlob(shape: shape, storage: .value(alias(id), layout)) }
            var valueShape = self.shape(of: id)
            valueShape[held] = part
            return CreateMLBlob(shape: shape, storage: .value(node(SliceOp(axis: held, start: start), [id], name: name, shape: valueShape), layout))
        }
    }

    /// Concatenation along `axis`; inputs of lower rank get leading 1s first (see ``CoreMLOperation``).
    mutating func concatenate(_ inputs: [CreateMLBlob], axis: Int, layer: CoreMLLayer, name: String) throws -> CreateMLBlob {
        func failed(_ detail: String) -> CoreMLModelError { .layerFailed(layer: layer.name, detail: detail) }
        let rank = inputs.map(\.rank).max() ?? 0
        guard let a = CreateMLShapes.resolve(axis, rank: rank) else { throw failed("concat axis \(axis) outside inputs \(inputs.map(\.shape))") }
        let aligned = inputs.map { CreateMLBlob(shape: [Int](repeating: 1, count: rank - $0.rank) + $0.shape, storage: $0.storage) }
        for input in aligned where input.shape.indices.contains(where: { $0 != a && input.shape[$0] != aligned[0].shape[$0] }) {
            throw failed("cannot concatenate \(inputs.map(\.shape)) along axis \(a)")
        }
        var shape = aligned[0].shape
        shape[a] = aligned.map { $0.shape[a] }.reduce(0, +)
        let constants = aligned.compactMap { blob -> Tensor? in
            guard case .constant(let data) = blob.storage else { return nil }
            return try? Self.tensor(blob.shape, data)
        }
        if constants.count == aligned.count {
            let out = try Tensor(zeros: shape)
            try Rearrangement.concatenate(constants, axis: a, into: out)
            return CreateMLBlob(shape: shape, storage: .constant(out.scalars))
        }
        var layout = Self.commonLayout(aligned)
        if Self.heldAxis(a, rank: rank, layout) == nil { layout = .rowMajor }
        // A row-major value that gained leading 1s is reshaped (no work); a channels-last one holds the same axes.
        let ids = try zip(aligned, layer.inputs).map { blob, input -> ValueID in
            let id = try value(blob, in: layout, name: input, layer: layer.name)
            return layout == .rowMajor ? try reshaped(id, to: blob.shape, name: input + "/rank\(rank)") : id
        }
        let held = Self.heldAxis(a, rank: rank, layout)!
        let valueShape = CreateMLBlob.heldAxes(layout, rank: rank).map { shape[$0] }
        guard ids.count > 1 else { return CreateMLBlob(shape: shape, storage: .value(alias(ids[0]), layout)) }
        return CreateMLBlob(shape: shape, storage: .value(node(ConcatenationOp(axis: held), ids, name: name, shape: valueShape), layout))
    }

    /// `numpy.take(data, indices, axis)` of constants (indices rounded, negatives from the end).
    mutating func gather(_ data: CreateMLBlob, _ indices: CreateMLBlob, axis: Int, layer: CoreMLLayer) throws -> CreateMLBlob {
        func failed(_ detail: String) -> CoreMLModelError { .layerFailed(layer: layer.name, detail: detail) }
        guard case .constant(let values) = data.storage, case .constant(let picks) = indices.storage else {
            throw CoreMLModelError.unsupportedLayer(file: file, layer: layer.name, detail: "gather from data computed at run time is not supported (only from shapes and constants)")
        }
        guard let a = CreateMLShapes.resolve(axis, rank: data.rank) else { throw failed("gather axis \(axis) outside \(data.shape)") }
        let size = data.shape[a], inner = data.shape[(a + 1)...].reduce(1, *), outer = data.shape[..<a].reduce(1, *)
        let chosen = try picks.map { value -> Int in
            // Int(exactly:) first: a NaN, infinite or huge index must be an error, not a trap.
            guard let index = Int(exactly: value.rounded()), (-size..<size).contains(index) else {
                throw failed("gather index \(value) outside axis of size \(size)")
            }
            return index < 0 ? index + size : index
        }
        var out: [Float] = []
        out.reserveCapacity(outer * chosen.count * inner)
        for o in 0..<outer {
            for pick in chosen { out += values[((o * size + pick) * inner)..<((o * size + pick + 1) * inner)] }
        }
        return CreateMLBlob(shape: Array(data.shape[..<a]) + indices.shape + Array(data.shape[(a + 1)...]), storage: .constant(out))
    }

    /// The blob seen with `shape` (same values, row-major order): nothing at all for a constant or
    /// a channels-last blob whose `[C, H, W]` stays, else a `reshape` of the row-major value.
    mutating func reshape(_ x: CreateMLBlob, to shape: [Int], layer: CoreMLLayer, name: String) throws -> CreateMLBlob {
        switch x.storage {
        case .constant:
            return CreateMLBlob(shape: shape, storage: x.storage)
        case .value(let id, .channelsLast) where CreateMLBlob.fitsChannelsLast(shape) && shape.suffix(3) == x.shape.suffix(3):
            return CreateMLBlob(shape: shape, storage: .value(alias(id), .channelsLast))
        case .padded where CreateMLBlob.fitsChannelsLast(shape) && shape.suffix(3) == x.shape.suffix(3):
            return CreateMLBlob(shape: shape, storage: x.storage)
        default:
            let id = try rowMajor(x, name: layer.inputs[0], layer: layer.name)
            let out = try reshaped(id, to: shape, name: name)
            return CreateMLBlob(shape: shape, storage: .value(out == id ? alias(id) : out, .rowMajor))
        }
    }
}
