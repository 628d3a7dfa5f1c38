import FrameIO
import PoseCore
import Streaming
import Tensor

/// Anything that finds poses in a frame: `PoseDetector` (module `Detectors`) (one network pass, or two with flip
/// averaging) and ``MultiScalePoseDetector`` (several input sizes merged, the accuracy preset).
///
/// The one-call way is ``poses(in:)-(VideoFrame)`` for one frame and `poses(from:)` (the
/// model-agnostic stream of module `Streaming`, which every finder is a `PoseFrameModel` of) for a
/// stream; both write the frame into ``input`` themselves. The low-level way is to write ``input`` yourself and call
/// ``detect(mappingTo:imageSize:padding:afterNetwork:)``.
public protocol PoseFinding: PoseFrameModel, PoseFrameWorker {
    /// The network input to fill, `[size, size, 3]` NHWC RGB scaled by ``inputScaling``.
    var input: Tensor { get }
    /// How 0…255 pixel values become ``input`` values (the weight bundle's `preprocessing`).
    var inputScaling: InputScaling { get }
    /// How a frame is fitted into the square ``input`` (letterbox or stretch).
    var geometry: InputPlacement.Fit { get }
    /// Cores one detection uses.
    var threads: Int { get }
    /// Runs on ``input`` and decodes; `transform` maps input pixels to the caller's image pixels,
    /// `imageSize` is the image's size when known. Keypoints are where the network puts them, also
    /// outside the image (never clamped). Poses are sorted best first.
    ///
    /// `padding` is the band of ``input`` rows (columns) that hold only padding, if the caller
    /// knows it (FrameIO's `NetworkInputWriter.paddingBand`): the network computes one of the
    /// rows (columns) it gives per layer instead of each, with the same heads (bit for bit with
    /// PoseKit's GEMM in tuned builds). nil computes everything; nothing looks for a band in the
    /// input. `afterNetwork` is called once the network passes are done (``input`` may be
    /// refilled from then on, and the cores are free while decoding: a reader can convert the
    /// next frame).
    func detect(mappingTo transform: ImageTransform, imageSize: (width: Int, height: Int)?,
                padding: PaddingBand?, afterNetwork: () -> Void) throws -> [Pose]
    /// The poses in `frame`, best first, in its pixels: the frame written into ``input`` (8-bit
    /// Y'CbCr straight from its planes, fused with the resize), then detected (skipping the
    /// writer's padding band).
    func poses(in frame: VideoFrame) throws -> [Pose]
    /// Another finder with the same settings on `threads` cores, reading the same weights (shared,
    /// not copied) into activations of its own: one per frame in flight, each on its own core.
    func sharingWeights(threads: Int) throws -> Self
}

extension PoseFinding {
    /// ``detect(mappingTo:imageSize:padding:afterNetwork:)`` with nothing to do between network and decoding.
    public func detect(mappingTo transform: ImageTransform, imageSize: (width: Int, height: Int)? = nil,
                       padding: PaddingBand? = nil) throws -> [Pose] {
        try detect(mappingTo: transform, imageSize: imageSize, padding: padding, afterNetwork: {})
    }

    /// The poses in an RGB image, best first, in the image's pixels.
    public func poses(in image: RGBImage) throws -> [Pose] {
        try poses(in: VideoFrame(image: image))
    }

    /// The poses in the image at `path` (PNM directly; JPEG, PNG, ... through ffmpeg; a video's
    /// first frame), best first, in its pixels. Errors name the file.
    public func poses(inImageAtPath path: String) throws -> [Pose] {
        try poses(in: RGBImage(contentsOfFile: path))
    }

    public func poses(in frame: VideoFrame) throws -> [Pose] {
        try FrameInputWriters.shared(by: self).withWriter(for: frame, of: self) { writer in
            try detect(writtenBy: writer, frame: frame)
        }
    }

    /// Runs and decodes what `writer` put into ``input``: network pixels → frame pixels.
    func detect(writtenBy writer: NetworkInputWriter, frame: VideoFrame) throws -> [Pose] {
        try detect(mappingTo: writer.placement.inputToImage, imageSize: (frame.width, frame.height), padding: writer.paddingBand,
                   afterNetwork: {})
    }
}
