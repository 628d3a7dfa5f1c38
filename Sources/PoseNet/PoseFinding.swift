import PoseCore
import Tensor

/// Anything that finds poses in a frame written into its ``input`` tensor: ``PoseDetector``
/// (one network pass, or two with flip averaging) and ``MultiScalePoseDetector`` (the accuracy preset).
public protocol PoseFinding: AnyObject {
    /// The network input to fill, `[size, size, 3]` NHWC RGB scaled by ``inputScaling``.
    var input: Tensor { get }
    /// How 0…255 pixel values become ``input`` values (the weight bundle's `preprocessing`).
    var inputScaling: InputScaling { get }
    /// Runs on ``input`` and decodes; `transform` maps input pixels to the caller's image pixels;
    /// with `imageSize`, keypoints are clamped into the image. Poses are sorted best first.
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
    /// Another finder with the same settings on `threads` cores, reading the same weights (shared,
    /// not copied) into activations of its own: one per frame in flight, each on its own core.
    func sharingWeights(threads: Int) throws -> any PoseFinding
}

extension PoseFinding {
    /// ``detect(mappingTo:imageSize:padding:afterNetwork:)`` with nothing to do between network and decoding.
    public func detect(mappingTo transform: ImageTransform, imageSize: (width: Int, height: Int)? = nil,
                       padding: PaddingBand? = nil) throws -> [Pose] {
        try detect(mappingTo: transform, imageSize: imageSize, padding: padding, afterNetwork: {})
    }
}
