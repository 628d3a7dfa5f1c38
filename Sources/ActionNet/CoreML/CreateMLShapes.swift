/// The shape rules of Core ML's N-D layers (NumPy's: negative axes count from the end), for the
/// Create ML mapper, which knows every shape while it maps. Each rule calls `failed` with what
/// does not fit.
enum CreateMLShapes {
    typealias Failure = (String) -> CoreMLModelError

    /// `axis` resolved against `rank` (negative counts from the end), or nil when out of range.
    static func resolve(_ axis: Int, rank: Int) -> Int? {
        let resolved = axis < 0 ? axis + rank : axis
        return (0..<rank).contains(resolved) ? resolved : nil
    }

    /// How many values `shape` holds, or nil when a size is negative or the product overflows.
    static func checkedCount(_ shape: [Int]) -> Int? {
        var count = 1
        for size in shape {
            guard size >= 0 else { return nil }
            let (product, overflow) = count.multipliedReportingOverflow(by: size)
            guard !overflow else { return nil }
            count = product
        }
        return count
    }

    /// Row-major reshape of `shape` to `target`, where one −1 takes the remaining size (0 is not special).
    static func reshaped(_ shape: [Int], to target: [Int], _ failed: Failure) throws -> [Int] {
        let count = shape.reduce(1, *)
        let inferred = target.filter { $0 == -1 }.count
        let known = checkedCount(target.filter { $0 != -1 }) ?? 0
        guard inferred <= 1, target.allSatisfy({ $0 >= 1 || $0 == -1 }), known > 0, count % known == 0,
              inferred == 1 || known == count else {
            throw failed("cannot reshape \(shape) (\(count) values) to \(target)")
        }
        return target.map { $0 == -1 ? count / known : $0 }
    }

    /// `numpy.expand_dims`: each axis (negative: counted from the end of the output) becomes size 1.
    static func expanded(_ shape: [Int], axes: [Int], _ failed: Failure) throws -> [Int] {
        let rank = shape.count + axes.count
        let resolved = axes.compactMap { resolve($0, rank: rank) }
        guard resolved.count == axes.count, Set(resolved).count == axes.count else {
            throw failed("expandDims axes \(axes) do not fit input \(shape)")
        }
        var rest = shape.makeIterator()
        return (0..<rank).map { resolved.contains($0) ? 1 : rest.next()! }
    }

    /// `numpy.squeeze`: the listed axes (all size-1 axes when `all`) are removed; each must be 1.
    static func squeezed(_ shape: [Int], axes: [Int], all: Bool, _ failed: Failure) throws -> [Int] {
        let resolved = all ? shape.indices.filter { shape[$0] == 1 } : axes.compactMap { resolve($0, rank: shape.count) }
        guard resolved.count == (all ? resolved.count : axes.count), resolved.allSatisfy({ shape[$0] == 1 }) else {
            throw failed("cannot squeeze axes \(axes) of \(shape)")
        }
        return shape.indices.filter { !resolved.contains($0) }.map { shape[$0] }
    }

    /// The parts of a split of `size` values: `sizes`, or `count` equal parts.
    static func parts(of size: Int, count: Int, sizes: [Int], _ failed: Failure) throws -> [Int] {
        let parts = sizes.isEmpty && count > 0 && size % count == 0 ? [Int](repeating: size / count, count: count) : sizes
        guard !parts.isEmpty, parts.reduce(0, +) == size, parts.allSatisfy({ $0 > 0 }) else {
            throw failed("cannot split \(size) into \(sizes.isEmpty ? "\(count) equal parts" : "\(sizes)")")
        }
        return parts
    }
}
