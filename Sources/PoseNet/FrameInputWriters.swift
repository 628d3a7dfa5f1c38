import Foundation
import FrameIO
import PoseCore
import Tensor

/// The frame-to-input writer a finder's one-call methods last planned, and the lock those
/// methods hold for a whole pass (one entry: frames of one stream share a size, and a stream of
/// ever-changing sizes cannot grow a cache). Its state is touched only under `lock`.
package final class FrameInputWriters: @unchecked Sendable {
    private let lock = NSLock()
    private var last: (key: Key, writer: NetworkInputWriter)?

    package init() {}

    private struct Key: Equatable {
        var width: Int, height: Int, size: Int, geometry: InputPlacement.Fit
        var chroma: Y4MChroma, conversion: YUVToRGB.Conversion, scaling: InputScaling
    }

    /// The writers of `finder` (PoseKit's own finders keep one; another conformer gets a new
    /// one per call, planned anew each time).
    package static func shared(by finder: some PoseFinding) -> FrameInputWriters {
        (finder as? FrameInputHolding)?.frameInputWriters ?? FrameInputWriters()
    }

    /// Under the lock: writes `frame` into `finder`'s input (8-bit Y'CbCr fused from its planes,
    /// anything else through RGB), with the finder's geometry and the model's input scaling, then
    /// runs `body` with the writer (its placement maps the poses back).
    package func withWriter<T>(for frame: VideoFrame, of finder: some PoseFinding, _ body: (NetworkInputWriter) throws -> T) throws -> T {
        lock.lock()
        defer { lock.unlock() }
        let size = finder.input.shape[0]
        switch frame.pixels {
        case .yuv(let yuv, let conversion) where yuv.format.chroma.bitDepth == 8 && !yuv.format.chroma.hasAlpha:
            let writer = try writer(width: yuv.width, height: yuv.height, size: size, finder: finder,
                                    chroma: yuv.format.chroma, conversion: conversion)
            finder.input.withUnsafeMutableBufferPointer { writer.write(yuv, into: $0) }
            return try body(writer)
        default:
            let image = frame.rgb()
            let writer = try writer(width: image.width, height: image.height, size: size, finder: finder,
                                    chroma: .c444, conversion: .bt601Limited)
            finder.input.withUnsafeMutableBufferPointer { writer.write(image, into: $0) }
            return try body(writer)
        }
    }

    /// The writer for these frames, planned once and reused while they do not change. A pass on
    /// two or more threads converts on two (the cores would otherwise wait for it).
    private func writer(width: Int, height: Int, size: Int, finder: some PoseFinding, chroma: Y4MChroma,
                        conversion: YUVToRGB.Conversion) throws -> NetworkInputWriter {
        let key = Key(width: width, height: height, size: size, geometry: finder.geometry, chroma: chroma,
                      conversion: conversion, scaling: finder.inputScaling)
        if let last, last.key == key { return last.writer }
        let writer = try NetworkInputWriter(sourceWidth: width, sourceHeight: height, size: size, geometry: finder.geometry,
                                            chroma: chroma, conversion: conversion, scaling: finder.inputScaling)
        writer.parallel = finder.threads >= 2
        last = (key, writer)
        return writer
    }
}

/// A finder that keeps its one-call writer (``FrameInputWriters``).
package protocol FrameInputHolding {
    var frameInputWriters: FrameInputWriters { get }
}
