import Foundation
import Tensor

/// BlazePose's mask from the crop back to the image, as `PoseLandmarksAndSegmentationInverseProjection`
/// does it: the inverse of `ImageToTensor`'s matrix (`GetRotatedSubRectToRectTransformMatrix` of the
/// padded region, normalized crop → normalized image, float32), adjusted to pixels as MediaPipe's
/// OpenCV runner adjusts it (`diag(maskW, maskH) · M⁻¹ · diag(1/W, 1/H)`), then OpenCV's
/// `warpAffine` with that matrix as the inverse map, zero outside the crop (`OpenCVWarpAffine`).
/// Image pixel (x, y) samples the crop's mask at `maskSide · M⁻¹ · (x/W, y/H)`.
public enum SegmentationInverseProjection {
    /// The row-major 2×3 matrix (as float32 values, widened to double) mapping image pixels to mask
    /// pixels; nil for a degenerate region.
    public static func imageToMaskMatrix(region: ImageToTensor.PixelRegion, imageSize: ImageSize,
                                         maskWidth: Int, maskHeight: Int) -> [Double]? {
        // `GetRotatedSubRectToRectTransformMatrix` (no flip), rows 0 and 1 of the 4×4, float32.
        let a = region.width, b = region.height
        let c = cosf(region.rotation), d = sinf(region.rotation)
        let e = region.centerX, f = region.centerY
        let g = 1 / Float(imageSize.width), h = 1 / Float(imageSize.height)
        let m00 = a * c * g, m01 = -b * d * g, m03 = (-0.5 * a * c + 0.5 * b * d + e) * g
        let m10 = a * d * h, m11 = b * c * h, m13 = (-0.5 * b * c - 0.5 * a * d + f) * h
        // Its inverse (an affine map: the 2×2 part inverted, the translation carried), stored as float.
        let determinant = Double(m00) * Double(m11) - Double(m01) * Double(m10)
        guard determinant != 0, determinant.isFinite else { return nil }
        let i00 = Float(Double(m11) / determinant), i01 = Float(-Double(m01) / determinant)
        let i10 = Float(-Double(m10) / determinant), i11 = Float(Double(m00) / determinant)
        let i03 = Float(-(Double(i00) * Double(m03) + Double(i01) * Double(m13)))
        let i13 = Float(-(Double(i10) * Double(m03) + Double(i11) * Double(m13)))
        // The runner's pixel adjustment, `scale_src · M⁻¹ · normalize_dst`, in float32.
        let sw = Float(maskWidth), sh = Float(maskHeight)
        let matrix: [Float] = [(sw * i00) * g, (sw * i01) * h, sw * i03,
                               (sh * i10) * g, (sh * i11) * h, sh * i13]
        guard matrix.allSatisfy(\.isFinite) else { return nil }
        return matrix.map(Double.init)
    }

    /// The crop's mask warped to a `imageSize` mask; throws `MediaPipeError.degenerateRegion` for a
    /// region with no area or a non-finite value.
    public static func project(_ mask: SegmentationMask, region: ImageToTensor.PixelRegion, roi: NormalizedRect,
                               imageSize: ImageSize, threads: Int = Parallelism.defaultThreads) throws -> SegmentationMask {
        guard imageSize.width > 0, imageSize.height > 0 else { throw MediaPipeError.emptyImage }
        guard let matrix = imageToMaskMatrix(region: region, imageSize: imageSize, maskWidth: mask.width, maskHeight: mask.height) else {
            throw MediaPipeError.degenerateRegion(roi)
        }
        var out = SegmentationMask(width: imageSize.width, height: imageSize.height)
        let (width, height, maskWidth, maskHeight) = (imageSize.width, imageSize.height, mask.width, mask.height)
        // About 2 ns a pixel: bands of at least 64 rows.
        let bands = max(1, min(threads, height / 64))
        mask.values.withUnsafeBufferPointer { source in
            out.values.withUnsafeMutableBufferPointer { target in
                nonisolated(unsafe) let source = source
                nonisolated(unsafe) let base = target.baseAddress!
                Parallelism.forEachBand(bands) { band in
                    OpenCVWarpAffine.warp(source: source, width: maskWidth, height: maskHeight, matrix: matrix, outputWidth: width,
                                          rows: Parallelism.bandRange(band, of: bands, count: height), output: base)
                }
            }
        }
        return out
    }
}
