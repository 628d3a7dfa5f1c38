import PoseCore
/// One frame loop for any input `posekit` accepts: a Y4M stream or a PNM stream (one image or
/// many), from a file, a FIFO or standard input (`"-"`), told apart by `InputFormat.sniff`.
///
/// It keeps one frame buffer and plans its converters once, so the loop allocates nothing per
/// frame (PNM streams whose images change size re-plan when the size changes):
///
///     let input = try FrameReader(path: "-")                      // sniffs PNM vs Y4M
///     var tensor = [Float](repeating: 0, count: 257 * 257 * 3)     // NHWC network input
///     var rgb = RGBImage()
///     while try input.advance() {
///         let mapping = tensor.withUnsafeMutableBufferPointer {
///             input.writeNetworkInput(size: 257, geometry: .letterbox, into: $0)
///         }
///         // frame x = network x / mapping.scaleX, frame y = network y / mapping.scaleY;
///         // mapping.padding: the letterbox rows (columns) for the network to skip
///         input.rgb(into: &rgb)                                    // for overlays / PPM or Y4M output
///         print(input.frameIndex, input.timestamp ?? 0)
///     }
///
/// Errors are `FrameIOError`s naming the frame index reached; every frame before it was delivered.
public final class FrameReader {
    public let format: InputFormat
    /// The Y4M stream header, nil for PNM input.
    public var y4mHeader: Y4MStreamHeader? { y4m?.header }
    /// Frames per second: the Y4M `F` parameter (nil if unknown or for PNM input).
    public var frameRate: Ratio? {
        guard let rate = y4m?.header.frameRate, !rate.isUnknown else { return nil }
        return rate
    }
    /// YUV→RGB conversion used for Y4M input: `matrix` given at init, range from `XCOLORRANGE`.
    public let conversion: YUVToRGB.Conversion
    /// Split conversion and resizing rows over two threads. Off by default (one core).
    public var parallel = false
    /// Zero-based index of the current frame (valid after `advance()` returned true).
    public private(set) var frameIndex = -1
    /// Size of the current frame.
    public var width: Int { y4m != nil ? yuv.width : image.width }
    public var height: Int { y4m != nil ? yuv.height : image.height }
    /// Seconds since the first frame (`frameIndex / frameRate`); nil without a frame rate.
    public var timestamp: Double? { y4m != nil ? yuv.timestamp : nil }

    private let y4m: Y4MReader?
    private let pnm: PNMReader?
    private var yuv = YUVFrame()
    private var image = RGBImage()
    private var converter: YUVToRGB?
    private var rgbIsCurrent = false
    // The last planned network input writer (one entry, so a PNM stream of ever-changing sizes
    // cannot grow a cache without bound).
    private var writer: (key: NetworkInputKey, writer: NetworkInputWriter)?

    private struct NetworkInputKey: Hashable {
        var width: Int, height: Int, size: Int, letterbox: Bool, fromRGB: Bool, scaling: InputScaling
    }

    /// Opens `path` (`"-"` = standard input) and reads the stream header if it is Y4M.
    public convenience init(path: String, limits: FrameLimits = .default, matrix: ColorMatrix = .bt601) throws {
        try self.init(source: try ByteSource(path: path), limits: limits, matrix: matrix)
    }

    public init(source: ByteSource, limits: FrameLimits = .default, matrix: ColorMatrix = .bt601) throws {
        format = try InputFormat.sniff(source)
        switch format {
        case .y4m:
            let reader = try Y4MReader(source: source, limits: limits)
            y4m = reader
            pnm = nil
            conversion = reader.conversion(matrix: matrix)
        case .pnm:
            y4m = nil
            pnm = PNMReader(source: source, limits: limits)
            conversion = YUVToRGB.Conversion(matrix: matrix)
        }
    }

    /// Reads the next frame. Returns false at the end of the input.
    public func advance() throws -> Bool {
        rgbIsCurrent = false
        if let y4m {
            guard try y4m.read(into: &yuv) else { return false }
            frameIndex = yuv.index
            return true
        }
        guard try pnm!.read(into: &image) else { return false }
        rgbIsCurrent = true
        frameIndex += 1
        return true
    }

    /// The current frame as RGB, converted once per frame (reusing `image`'s storage).
    public func rgb(into output: inout RGBImage) {
        ensureRGB()
        output.reshape(width: image.width, height: image.height)
        output.pixels.withUnsafeMutableBufferPointer { dst in
            image.pixels.withUnsafeBufferPointer { src in dst.baseAddress!.update(from: src.baseAddress!, count: src.count) }
        }
    }

    /// The current frame as a new RGB image.
    public func rgb() -> RGBImage {
        ensureRGB()
        return image
    }

    private func ensureRGB() {
        guard !rgbIsCurrent else { return }
        if converter?.format != yuv.format { converter = YUVToRGB(format: yuv.format, conversion: conversion) }
        converter!.parallel = parallel
        converter!.convert(yuv, into: &image)
        rgbIsCurrent = true
    }

    /// Writes the current frame into a `size × size × 3` NHWC network input (see `NetworkInputWriter`),
    /// fused from Y'CbCr when the input is 8-bit Y4M. Returns the scale from frame to network
    /// pixels and the writer's `paddingBand` (the input rows or columns that hold only padding).
    @discardableResult
    public func writeNetworkInput(size: Int, geometry: InputPlacement.Fit = .letterbox,
                                  scaling: InputScaling = .minusOneToOne,
                                  into output: UnsafeMutableBufferPointer<Float>)
    -> (scaleX: Float, scaleY: Float, padding: PaddingBand?) {
        precondition(size > 0, "FrameReader.writeNetworkInput: size must be positive, got \(size)")
        let fused = y4m != nil && yuv.format.chroma.bitDepth == 8 && !yuv.format.chroma.hasAlpha
        let key = NetworkInputKey(width: width, height: height, size: size, letterbox: geometry == .letterbox, fromRGB: !fused,
                                  scaling: scaling)
        let writer: NetworkInputWriter
        if let planned = self.writer, planned.key == key {
            writer = planned.writer
        } else {
            // Sizes come from a validated frame, `size` is positive and the chroma 8-bit: cannot fail.
            writer = try! NetworkInputWriter(sourceWidth: width, sourceHeight: height, size: size, geometry: geometry,
                                             chroma: fused ? yuv.format.chroma : .c444, conversion: conversion,
                                             scaling: scaling)
            self.writer = (key, writer)
        }
        writer.parallel = parallel
        if fused {
            writer.write(yuv, into: output)
        } else {
            ensureRGB()
            writer.write(image, into: output)
        }
        return (writer.scaleX, writer.scaleY, writer.paddingBand)
    }
}
