import Foundation
import FrameIO
import Tensor

/// MediaPipe's `ImageToTensorCalculator` (CPU, OpenCV converter): a rotated region of an RGB
/// image cropped, letterboxed to the model's aspect and scaled to the model's value range.
///
/// The region in pixels is computed in float32 as MediaPipe does (`GetRoi`, then `PadRoi` with
/// keep-aspect-ratio, which widens the region and reports the padding), then sampled by
/// `OpenCVWarp` bit for bit as OpenCV's `warpPerspective` samples it. The output tensor is
/// `[1, outputHeight, outputWidth, 3]` NHWC float32, RGB, contiguous.
public struct ImageToTensor: Sendable {
    /// What the crop reads outside the image.
    public enum Border: Sendable {
        /// Zero pixels (`BORDER_CONSTANT`, the detectors): the padding becomes the range's minimum.
        case zero
        /// The nearest edge pixel (`BORDER_REPLICATE`, the landmark models).
        case replicate
    }

    public var outputWidth: Int
    public var outputHeight: Int
    /// The value a 0 pixel maps to.
    public var rangeMinimum: Float
    /// The value a 255 pixel maps to.
    public var rangeMaximum: Float
    public var border: Border
    /// Letterbox the region to the output's aspect (MediaPipe's `keep_aspect_ratio`).
    public var keepAspectRatio: Bool

    public init(outputWidth: Int, outputHeight: Int, rangeMinimum: Float, rangeMaximum: Float,
                border: Border, keepAspectRatio: Bool = true) {
        precondition(outputWidth > 0 && outputHeight > 0, "ImageToTensor: empty output")
        self.outputWidth = outputWidth
        self.outputHeight = outputHeight
        self.rangeMinimum = rangeMinimum
        self.rangeMaximum = rangeMaximum
        self.border = border
        self.keepAspectRatio = keepAspectRatio
    }

    /// BlazePose's detector input: the whole frame letterboxed to 224×224 in [-1, 1], zero border.
    public static let poseDetection = ImageToTensor(outputWidth: 224, outputHeight: 224, rangeMinimum: -1, rangeMaximum: 1, border: .zero)
    /// BlazePose's landmark input: the region at 256×256 in [0, 1], border replicate.
    public static let poseLandmark = ImageToTensor(outputWidth: 256, outputHeight: 256, rangeMinimum: 0, rangeMaximum: 1, border: .replicate)
    /// The palm detector's input: the whole frame letterboxed to 192×192 in [0, 1], zero border.
    public static let palmDetection = ImageToTensor(outputWidth: 192, outputHeight: 192, rangeMinimum: 0, rangeMaximum: 1, border: .zero)
    /// The hand landmark model's input: the region at 224×224 in [0, 1], border replicate.
    public static let handLandmark = ImageToTensor(outputWidth: 224, outputHeight: 224, rangeMinimum: 0, rangeMaximum: 1, border: .replicate)

    /// The region of an image in pixels after `PadRoi`: centre, size and rotation (radians), float32.
    public struct PixelRegion: Sendable, Equatable {
        public var centerX: Float, centerY: Float, width: Float, height: Float, rotation: Float
    }

    /// The pixel region `roi` (nil: the whole image) stands for in a `width × height` image, and
    /// the letterbox padding that keeps the output's aspect (`GetRoi` + `PadRoi`, float32).
    public func region(imageWidth width: Int, imageHeight height: Int, roi: NormalizedRect?) -> (PixelRegion, LetterboxPadding) {
        var region: PixelRegion
        if let roi {
            region = PixelRegion(centerX: roi.xCenter * Float(width), centerY: roi.yCenter * Float(height),
                                 width: roi.width * Float(width), height: roi.height * Float(height), rotation: roi.rotation)
        } else {
            region = PixelRegion(centerX: 0.5 * Float(width), centerY: 0.5 * Float(height),
                                 width: Float(width), height: Float(height), rotation: 0)
        }
        guard keepAspectRatio else { return (region, .none) }
        let tensorAspect = Float(outputHeight) / Float(outputWidth)
        let regionAspect = region.height / region.width
        var padding = LetterboxPadding()
        if tensorAspect > regionAspect {
            region.height = region.width * tensorAspect
            padding.top = (1 - regionAspect / tensorAspect) / 2
            padding.bottom = padding.top
        } else {
            region.width = region.height / tensorAspect
            padding.left = (1 - tensorAspect / regionAspect) / 2
            padding.right = padding.left
        }
        return (region, padding)
    }

    /// The row-major 3×3 matrix mapping output pixels to image pixels for `region` (OpenCV's
    /// inverse of `getPerspectiveTransform(boxPoints, output corners)`); nil for a degenerate region.
    public func outputToImageMatrix(_ region: PixelRegion) -> [Double]? {
        guard [region.centerX, region.centerY, region.width, region.height, region.rotation].allSatisfy(\.isFinite),
              region.width > 0, region.height > 0 else { return nil }
        // MediaPipe passes `rotation * 180.f / M_PI` (float times float, divided in double) as float degrees.
        let degrees = Float(Double(region.rotation * 180) / Double.pi)
        let corners = OpenCVWarp.boxPoints(centerX: region.centerX, centerY: region.centerY,
                                           width: region.width, height: region.height, angleDegrees: degrees)
        let w = Float(outputWidth), h = Float(outputHeight)
        let destination: [SIMD2<Float>] = [SIMD2(0, h), SIMD2(0, 0), SIMD2(w, 0), SIMD2(w, h)]
        guard let forward = OpenCVWarp.perspectiveTransform(from: corners, to: destination),
              let inverse = OpenCVWarp.inverse3x3(forward), inverse.allSatisfy(\.isFinite) else { return nil }
        return inverse
    }

    /// Crops `roi` of `image` (nil: the whole image) into a new `[1, outputHeight, outputWidth, 3]`
    /// tensor; returns it with the letterbox padding. Throws `MediaPipeError.degenerateRegion` for
    /// a region with no area or non-finite values.
    public func tensor(from image: RGBImage, roi: NormalizedRect? = nil, threads: Int = Parallelism.defaultThreads) throws -> (tensor: Tensor, padding: LetterboxPadding) {
        let tensor = try Tensor(zeros: [1, outputHeight, outputWidth, 3])
        let padding = try tensor.withUnsafeMutableBufferPointer { try write(image, roi: roi, into: $0, threads: threads) }
        return (tensor, padding)
    }

    /// Crops `roi` of `image` into `output` (`outputHeight · outputWidth · 3` floats, HWC); returns
    /// the letterbox padding.
    public func write(_ image: RGBImage, roi: NormalizedRect?, into output: UnsafeMutableBufferPointer<Float>,
                      threads: Int = Parallelism.defaultThreads) throws -> LetterboxPadding {
        precondition(output.count >= outputWidth * outputHeight * 3, "ImageToTensor: output too small")
        guard image.width > 0, image.height > 0 else { throw MediaPipeError.emptyImage }
        let (region, padding) = self.region(imageWidth: image.width, imageHeight: image.height, roi: roi)
        guard let inverse = outputToImageMatrix(region) else { throw MediaPipeError.degenerateRegion(roi ?? NormalizedRect(xCenter: 0.5, yCenter: 0.5, width: 1, height: 1)) }
        let scale = (rangeMaximum - rangeMinimum) / 255, offset = rangeMinimum
        let border: OpenCVWarp.Border = self.border == .zero ? .zero : .replicate
        let (width, height, outputWidth, outputHeight) = (image.width, image.height, self.outputWidth, self.outputHeight)
        // About 1 µs per 8 output rows of 256: split only into bands worth a thread.
        let bands = max(1, min(threads, outputHeight / 32))
        image.pixels.withUnsafeBufferPointer { pixels in
            nonisolated(unsafe) let pixels = pixels
            nonisolated(unsafe) let base = output.baseAddress!
            Parallelism.forEachBand(bands) { band in
                let rows = Parallelism.bandRange(band, of: bands, count: outputHeight)
                OpenCVWarp.warp(pixels: pixels, width: width, height: height, inverse: inverse, border: border,
                                outputWidth: outputWidth, rows: rows, scale: scale, offset: offset, output: base)
            }
        }
        return padding
    }
}
