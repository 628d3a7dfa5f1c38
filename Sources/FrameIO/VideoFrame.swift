/// One frame of a Y4M video as it was read, with what it takes to interpret its pixels.
///
/// The pixels stay planar Y'CbCr (``yuv``): a pose detector resizes and converts them to its
/// network input in one fused pass, so no full-size RGB frame is made unless ``rgb()`` asks.
///
///     for try await frame in Y4MFrameSequence(path: "clip.y4m") {
///         print(frame.index, frame.time ?? 0, frame.width, frame.height)
///     }
public struct VideoFrame: Sendable {
    /// The frame's planes, layout as ``YUVFrame/format`` says (Y, then Cb, then Cr; row-major).
    public var yuv: YUVFrame
    /// How ``yuv`` becomes RGB: BT.601, range from the stream's `XCOLORRANGE` (limited when absent).
    public var conversion: YUVToRGB.Conversion

    /// Wraps a frame read by a ``Y4MReader`` (pass the reader's ``Y4MReader/defaultConversion``).
    public init(yuv: YUVFrame, conversion: YUVToRGB.Conversion) {
        self.yuv = yuv
        self.conversion = conversion
    }

    /// Zero-based index of the frame in its stream.
    public var index: Int { yuv.index }
    /// Seconds from the first frame (`index / frameRate`); nil when the stream has no frame rate (`F0:0`).
    public var time: Double? { yuv.timestamp }
    /// Size in pixels.
    public var width: Int { yuv.width }
    public var height: Int { yuv.height }

    /// The frame as a new RGB image (converted now, with ``conversion``).
    public func rgb() -> RGBImage {
        var image = RGBImage()
        YUVToRGB(format: yuv.format, conversion: conversion).convert(yuv, into: &image)
        return image
    }
}
