import PoseCore
import Dispatch
import Foundation
import FrameIO
import Tensor

extension PoseDetector {
    /// A detector for one of the bundled models (or a bundle file) with the `posekit pose`
    /// defaults, or the given ``Configuration``.
    ///
    ///     let detector = try PoseDetector(model: .mobilenet075)
    ///
    /// - Throws: ``ModelLocator/NotFound`` when the weights cannot be found (the message says how
    ///   to get them), a ``WeightBundleError`` for a broken bundle, ``PoseNetError`` for a
    ///   configuration the network cannot run (an input size under 33, an output stride not 8, 16 or 32).
    public convenience init(model: PoseModel, configuration: Configuration = .default) throws {
        let url = try model.bundleURL()
        try self.init(bundle: try WeightBundle(contentsOf: url), configuration: configuration)
    }

    /// A detector for weights already loaded.
    public convenience init(bundle: WeightBundle, configuration: Configuration = .default) throws {
        try configuration.decoding.parameters.validate()
        let network = try PoseNetModel(bundle: bundle, inputSize: configuration.inputSize,
                                       outputStride: configuration.outputStride, threads: configuration.resolvedThreads)
        self.init(model: network, decoding: configuration.decoding, geometry: configuration.geometry)
    }

    /// The poses in an RGB image, best first, in the image's pixels (pixel centers at integers,
    /// clamped into the image). The letterbox or stretch geometry is handled here.
    public func poses(in image: RGBImage) throws -> [Pose] {
        try frameInput.withLock { writers in
            let writer = try writers.writer(width: image.width, height: image.height, size: model.inputSize,
                                            geometry: geometry, chroma: .c444, conversion: .bt601Limited)
            model.input.withUnsafeMutableBufferPointer { writer.write(image, into: $0) }
            return try detect(writtenBy: writer, width: image.width, height: image.height)
        }
    }

    /// The poses in a video frame, best first, in the frame's pixels. 8-bit frames go to the
    /// network input straight from Y'CbCr, as `posekit pose` does; deeper ones through RGB.
    public func poses(in frame: VideoFrame) throws -> [Pose] {
        let chroma = frame.yuv.format.chroma
        guard chroma.bitDepth == 8, !chroma.hasAlpha else { return try poses(in: frame.rgb()) }
        return try frameInput.withLock { writers in
            let writer = try writers.writer(width: frame.width, height: frame.height, size: model.inputSize,
                                            geometry: geometry, chroma: chroma, conversion: frame.conversion)
            model.input.withUnsafeMutableBufferPointer { writer.write(frame.yuv, into: $0) }
            return try detect(writtenBy: writer, width: frame.width, height: frame.height)
        }
    }

    /// The poses in the first image of a PNM file (or the first frame of a Y4M file); see
    /// `RGBImage.init(contentsOfFile:)`.
    public func poses(inImageAtPath path: String) throws -> [Pose] {
        try poses(in: RGBImage(contentsOfFile: path))
    }

    /// ``poses(in:)-(VideoFrame)`` on a dispatch thread, off the Swift concurrency pool (a
    /// network pass keeps its thread busy for milliseconds).
    func posesOffPool(in frame: VideoFrame) async throws -> [Pose] {
        try await withCheckedThrowingContinuation { continuation in
            DispatchQueue.global(qos: .userInitiated).async {
                continuation.resume(with: Result { try self.poses(in: frame) })
            }
        }
    }

    /// Runs and decodes what `writer` put into the input (skipping its padding band): network
    /// pixels → frame pixels.
    private func detect(writtenBy writer: NetworkInputWriter, width: Int, height: Int) throws -> [Pose] {
        let transform = ImageTransform(scaleX: 1 / Double(writer.scaleX), scaleY: 1 / Double(writer.scaleY))
        return try detect(mappingTo: transform, imageSize: (width, height), padding: writer.paddingBand)
    }
}

/// The lock of a detector's one-call methods and the frame-to-input writer they last planned
/// (one entry: frames of one stream share a size, and a stream of ever-changing sizes cannot
/// grow a cache). Its state is touched only under `lock`.
final class FrameInputState: @unchecked Sendable {
    private let lock = NSLock()
    private var cache = Writers()

    struct Writers {
        private var last: (key: Key, writer: NetworkInputWriter)?

        private struct Key: Equatable {
            var width: Int, height: Int, size: Int
            var geometry: NetworkInputWriter.Geometry, chroma: Y4MChroma, conversion: YUVToRGB.Conversion
        }

        /// The writer for these frames, planned once and reused while they do not change.
        mutating func writer(width: Int, height: Int, size: Int, geometry: NetworkInputWriter.Geometry,
                             chroma: Y4MChroma, conversion: YUVToRGB.Conversion) throws -> NetworkInputWriter {
            let key = Key(width: width, height: height, size: size, geometry: geometry, chroma: chroma, conversion: conversion)
            if let last, last.key == key { return last.writer }
            let writer = try NetworkInputWriter(sourceWidth: width, sourceHeight: height, size: size, geometry: geometry,
                                                chroma: chroma, conversion: conversion)
            last = (key, writer)
            return writer
        }
    }

    func withLock<T>(_ body: (inout Writers) throws -> T) rethrows -> T {
        lock.lock()
        defer { lock.unlock() }
        return try body(&cache)
    }
}
