/// One frame of a video, or one still image, as it was read, with what it takes to interpret its
/// pixels: what ``MediaFrames`` delivers and a pose detector takes.
///
/// Video frames keep their planar Y'CbCr (``Pixels/yuv(_:_:)``): a pose detector resizes and
/// converts them to its network input in one fused pass, so no full-size RGB frame is made unless
/// ``rgb()`` asks. Still images (PNM, or JPEG and PNG decoded by ffmpeg) are RGB.
///
///     for try await frame in MediaFrames(path: "clip.mp4") {
///         print(frame.index, frame.time ?? 0, frame.width, frame.height)
///     }
public struct VideoFrame: Sendable {
    /// A frame's pixels as they were read.
    public enum Pixels: Sendable {
        /// Planar Y'CbCr (Y, then Cb, then Cr; row-major, layout as ``YUVFrame/format`` says) and
        /// how it becomes RGB (BT.601, range from the stream's `XCOLORRANGE`, limited when absent).
        case yuv(YUVFrame, YUVToRGB.Conversion)
        /// Interleaved 8-bit RGB.
        case rgb(RGBImage)
    }

    public var pixels: Pixels
    /// Zero-based index of the frame in its stream (of the image, for a stream of images).
    public var index: Int
    /// Seconds from the first frame (`index / frameRate`); nil for still images and for streams
    /// without a frame rate (Y4M `F0:0`).
    public var time: Double?
    /// Frames per second of the stream the frame comes from; nil when unknown or for still images.
    public var frameRate: Ratio?
    /// True for a still image: a detector does not track people across still images, each is a
    /// picture of its own.
    public var isStillImage: Bool

    /// A video frame read by a ``Y4MReader`` (pass its ``Y4MReader/defaultConversion``): index and
    /// time come from `yuv`.
    public init(yuv: YUVFrame, conversion: YUVToRGB.Conversion, frameRate: Ratio? = nil) {
        pixels = .yuv(yuv, conversion)
        index = yuv.index
        time = yuv.timestamp
        self.frameRate = frameRate
        isStillImage = false
    }

    /// An RGB image: a still image by default, or a video frame at `time` (`isStillImage: false`).
    public init(image: RGBImage, index: Int = 0, time: Double? = nil, frameRate: Ratio? = nil, isStillImage: Bool = true) {
        pixels = .rgb(image)
        self.index = index
        self.time = time
        self.frameRate = frameRate
        self.isStillImage = isStillImage
    }

    /// Size in pixels.
    public var width: Int {
        switch pixels {
        case .yuv(let yuv, _): return yuv.width
        case .rgb(let image): return image.width
        }
    }

    public var height: Int {
        switch pixels {
        case .yuv(let yuv, _): return yuv.height
        case .rgb(let image): return image.height
        }
    }

    /// The frame as RGB (Y'CbCr converted now).
    public func rgb() -> RGBImage {
        switch pixels {
        case .yuv(let yuv, let conversion):
            var image = RGBImage()
            YUVToRGB(format: yuv.format, conversion: conversion).convert(yuv, into: &image)
            return image
        case .rgb(let image):
            return image
        }
    }
}
