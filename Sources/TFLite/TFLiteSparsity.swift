import FlatBuffers

/// TFLite's sparse tensor storage (`SparsityParameters`), turned back into dense row-major order
/// for folding `DENSIFY` at import.
///
/// The format is a tree with one level per axis (`dim_metadata`, in `traversal_order`). A DENSE
/// level of size n gives each parent position n children; a SPARSE_CSR level gives parent position
/// p the children `array_segments[p] ..< array_segments[p+1]`, whose coordinates on that axis are
/// `array_indices[...]`. The leaves, in order, are the stored values. MediaPipe's pose detector
/// uses DENSE, DENSE, DENSE, SPARSE_CSR over OHWI conv weights, uint16 segments and uint8 indices.
///
/// Every claim is checked against the dense shape: dense sizes equal the axes, segments start at 0,
/// never decrease and end at the index count, indices lie inside the axis and increase within a
/// segment (so no element is written twice), and the leaves match the stored value count. A file
/// whose metadata lies is refused, never read out of bounds.
enum TFLiteSparsity {
    /// For a tensor of `shape` stored as `storedCount` values under `sparsity`, the dense row-major
    /// offset of each stored value.
    static func denseOffsets(shape: [Int], storedCount: Int, sparsity: FlatTable, fail: (String) -> Error) throws -> [Int] {
        let rank = shape.count
        let traversal = try sparsity.vector(0, elementSize: 4)?.scalars(Int32.self).map(Int.init) ?? []
        guard traversal == Array(0..<rank) else {
            throw fail("sparse traversal order \(traversal) is not supported (only [0, 1, ..., \(rank - 1)] for shape \(shape))")
        }
        if let blockMap = try sparsity.vector(1, elementSize: 4), blockMap.count > 0 {
            throw fail("block-sparse storage is not supported")
        }
        guard let levels = try sparsity.vector(2, elementSize: 4), levels.count == rank else {
            throw fail("sparsity metadata describes a different number of axes than shape \(shape)")
        }
        var offsets = [0]   // dense offset of each position at the current level, parents first
        for axis in 0..<rank {
            let level = try levels.table(at: axis)
            let format: Int8 = try level.scalar(0, default: 0)
            let size = shape[axis]
            var next: [Int] = []
            switch format {
            case 0:   // DENSE
                let denseSize = Int(try level.scalar(1, default: Int32(0)))
                guard denseSize == size else { throw fail("sparsity metadata gives axis \(axis) dense size \(denseSize), but the shape \(shape) says \(size)") }
                next.reserveCapacity(offsets.count * size)
                for o in offsets { for i in 0..<size { next.append(o * size + i) } }
            case 1:   // SPARSE_CSR
                let segments = try indexVector(level.union(2), "segments", axis, fail)
                let indices = try indexVector(level.union(4), "indices", axis, fail)
                guard segments.count == offsets.count + 1, segments.first == 0, segments.last == indices.count else {
                    throw fail("sparsity metadata of axis \(axis): \(segments.count) segments ending at \(segments.last ?? -1) for \(offsets.count) rows and \(indices.count) indices")
                }
                if let row = segments.indices.dropLast().first(where: { segments[$0] > segments[$0 + 1] }) {
                    throw fail("sparsity metadata of axis \(axis): segment \(row) runs backwards (\(segments[row]) to \(segments[row + 1]))")
                }
                guard indices.count <= storedCount else {
                    throw fail("sparsity metadata of axis \(axis) lists \(indices.count) indices for \(storedCount) stored values")
                }
                next.reserveCapacity(indices.count)
                for (row, o) in offsets.enumerated() {
                    let (from, to) = (segments[row], segments[row + 1])   // from ≤ to, checked above
                    var previous = -1
                    for j in from..<to {
                        let i = indices[j]
                        guard i > previous, i < size else {
                            throw fail("sparsity metadata of axis \(axis): index \(i) at position \(j) is outside 0..<\(size) or out of order")
                        }
                        previous = i
                        next.append(o * size + i)
                    }
                }
            default:
                throw fail("sparsity metadata of axis \(axis) has format \(format)")
            }
            offsets = next
        }
        guard offsets.count == storedCount else {
            throw fail("sparsity metadata describes \(offsets.count) values, but \(storedCount) are stored")
        }
        return offsets
    }

    /// A `SparseIndexVector` union (Int32Vector 1, Uint16Vector 2, Uint8Vector 3; each a table whose
    /// field 0 is the values vector) as `Int`s.
    private static func indexVector(_ union: (type: UInt8, table: FlatTable?), _ what: String, _ axis: Int,
                                    _ fail: (String) -> Error) throws -> [Int] {
        guard let table = union.table else { throw fail("sparse axis \(axis) has no \(what)") }
        switch union.type {
        case 1: return try table.vector(0, elementSize: 4)?.scalars(Int32.self).map(Int.init) ?? []
        case 2: return try table.vector(0, elementSize: 2)?.scalars(UInt16.self).map(Int.init) ?? []
        case 3: return try table.vector(0, elementSize: 1)?.scalars(UInt8.self).map(Int.init) ?? []
        default: throw fail("sparse axis \(axis) has \(what) of union type \(union.type)")
        }
    }
}
