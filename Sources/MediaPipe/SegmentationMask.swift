/// A person mask: one probability per pixel (1 = person, 0 = background), row-major,
/// `width × height` float32, as MediaPipe's `segmentation_mask` (`VEC32F1` image).
public struct SegmentationMask: Sendable, Equatable {
    public var width: Int
    public var height: Int
    /// `width · height` probabilities, row by row from the top-left pixel.
    public var values: [Float]

    public init(width: Int, height: Int, values: [Float]) {
        precondition(width >= 0 && height >= 0 && values.count == width * height, "SegmentationMask: \(values.count) values for \(width)×\(height)")
        self.width = width
        self.height = height
        self.values = values
    }

    /// An all-background mask.
    public init(width: Int, height: Int) {
        self.init(width: width, height: height, values: [Float](repeating: 0, count: width * height))
    }

    /// The probability at pixel (x, y).
    public subscript(x: Int, y: Int) -> Float { values[y * width + x] }

    /// The per-pixel maximum of several people's masks of one image (the mask of everyone); an
    /// empty list gives an all-background mask of `width × height`.
    public static func union(_ masks: [SegmentationMask], width: Int, height: Int) -> SegmentationMask {
        var out = SegmentationMask(width: width, height: height)
        for mask in masks {
            precondition(mask.width == width && mask.height == height, "SegmentationMask.union: sizes differ")
            out.values.withUnsafeMutableBufferPointer { target in
                mask.values.withUnsafeBufferPointer { source in
                    for i in 0..<target.count { target[i] = max(target[i], source[i]) }
                }
            }
        }
        return out
    }

    /// The mask as 8-bit grey levels (round(p · 255), NaN as 0), row-major: what a PGM or a
    /// grey video frame stores.
    public var grayLevels: [UInt8] {
        values.map { value in
            guard value.isFinite else { return value == .infinity ? 255 : 0 }
            return UInt8(min(max(value, 0), 1) * 255 + 0.5)
        }
    }
}
