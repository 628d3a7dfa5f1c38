/// MediaPipe's `SegmentationSmoothingCalculator` (CPU), as the legacy pose graph's
/// `PoseSegmentationFiltering` runs it in video mode (`smooth_segmentation`,
/// `combine_with_previous_ratio` 0.7): each pixel blends towards the previous frame's smoothed
/// mask by how uncertain its new value is, `new = cur + (prev − cur) · u(cur) · ratio`, where `u`
/// is MediaPipe's polynomial fit of the squared binary entropy in bits (1 at p = ½, 0 at 0 and 1).
/// Confident pixels follow the new frame; the silhouette's edge is steadied.
///
/// The previous mask is the last *output*; a frame without a mask (no pose) clears it, so the
/// next mask passes through unchanged (MediaPipe's loopback has no packet then).
public struct SegmentationSmoothing: Sendable {
    /// How much of the previous mask an entirely uncertain pixel keeps (MediaPipe's pose graph: 0.7).
    public var combineWithPreviousRatio: Float
    private var previous: SegmentationMask?

    public init(combineWithPreviousRatio: Float = 0.7) {
        self.combineWithPreviousRatio = combineWithPreviousRatio
    }

    public mutating func reset() { previous = nil }

    /// The uncertainty of a probability: 1 − min(1, x·(c1 + x·(c2 + x·(c3 + x·(c4 + x·c5))))) with x = (p − ½)².
    @inlinable public static func uncertainty(_ p: Float) -> Float {
        let c1: Float = 5.68842, c2: Float = -0.748699, c3: Float = -57.8051, c4: Float = 291.309, c5: Float = -624.717
        let t = p - 0.5
        let x = t * t
        return 1 - min(1, x * (c1 + x * (c2 + x * (c3 + x * (c4 + x * c5)))))
    }

    /// Smooths `mask` with the previous output (passed through on the first frame or after a size change).
    public mutating func apply(_ mask: SegmentationMask) -> SegmentationMask {
        guard let previous, previous.width == mask.width, previous.height == mask.height else {
            self.previous = mask
            return mask
        }
        var out = mask
        let ratio = combineWithPreviousRatio
        out.values.withUnsafeMutableBufferPointer { current in
            previous.values.withUnsafeBufferPointer { last in
                for i in 0..<current.count {
                    let value = current[i]
                    current[i] = value + (last[i] - value) * (Self.uncertainty(value) * ratio)
                }
            }
        }
        self.previous = out
        return out
    }
}
