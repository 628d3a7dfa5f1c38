/// What the network runs on each image: these sizes (largest first), at this stride, with or
/// without flip averaging, enlarging no image past the upscale limit (``MultiScalePoseDetector``
/// merges several sizes; ``AccuracyPreset`` is one such plan).
public struct InputScales: Equatable, Sendable {
    /// Input sizes, largest first.
    public var sizes: [Int]
    /// The output stride of every size.
    public var outputStride: Int
    /// Whether each size also runs on the mirrored image, the heads averaged.
    public var flip: Bool
    /// No image is enlarged more than this (nil: no limit).
    public var maximumUpscale: Double?

    /// A plan of `sizes` at `outputStride`.
    public init(sizes: [Int], outputStride: Int, flip: Bool, maximumUpscale: Double?) {
        (self.sizes, self.outputStride, self.flip, self.maximumUpscale) = (sizes, outputStride, flip, maximumUpscale)
    }
}
