import ModelGraph

/// A Core ML blob as the Create ML mapper (``CreateMLGraphMapper``) holds it: its shape as Core
/// ML sees it, and where its values are in the graph being built.
///
/// Core ML's image-style layers read the last three axes of a blob as `[C, H, W]` (earlier axes
/// batch, all 1 here); Tensor's kernels want `[H, W, C]`. So a blob is kept in one of two
/// layouts, chosen per blob, and converted (one transpose) only where a layer needs the other:
/// - ``Layout/rowMajor``: the graph value holds the blob as Core ML has it (its shape exactly);
/// - ``Layout/channelsLast``: the blob is `[1, …, 1, C, H, W]` and the graph value is `[H, W, C]`
///   (what convolutions, pooling and batchnorm read and write; transposes, splits, concats and
///   softmax between them work on it with their axes mapped).
struct CreateMLBlob {
    enum Layout: Equatable {
        case rowMajor, channelsLast
    }

    enum Storage {
        /// A graph value in `layout`.
        case value(ValueID, Layout)
        /// Known while mapping (a shape computation: `getShape`, `loadConstantND`, a `gather`
        /// of them, ...), row-major; becomes a graph constant only where an operation reads it.
        case constant([Float])
        /// A channels-last value zero-padded by `padding` along H and W, not materialized: the
        /// convolution that alone reads it takes the padding on (Core ML's `padding` layer before a
        /// VALID convolution).
        case padded(ValueID, SpatialPadding)
    }

    /// The shape as Core ML sees it (batch axes included).
    var shape: [Int]
    var storage: Storage

    var rank: Int { shape.count }

    /// Whether the blob can be held channels-last: rank ≥ 3 with every axis before `[C, H, W]` 1.
    static func fitsChannelsLast(_ shape: [Int]) -> Bool {
        shape.count >= 3 && shape.dropLast(3).allSatisfy { $0 == 1 }
    }

    /// The channels-last value's shape `[H, W, C]` of a blob of `shape`.
    static func channelsLastShape(_ shape: [Int]) -> [Int] {
        let r = shape.count
        return [shape[r - 2], shape[r - 1], shape[r - 3]]
    }

    /// The Core ML axis each axis of the value holds: channels-last `[H, W, C]` is axes
    /// `[r − 2, r − 1, r − 3]` of a rank-`r` blob; row-major is the blob's own order.
    static func heldAxes(_ layout: Layout, rank r: Int) -> [Int] {
        layout == .channelsLast ? [r - 2, r - 1, r - 3] : Array(0..<r)
    }
}
