import FrameIO
import PoseCore
import PoseNet
import Tensor

/// Finds people's poses in images and video frames: a PoseNet model plus decoding.
///
/// The one-call way, with the `posekit` command's defaults:
///
///     let detector = try PoseDetector(model: .mobilenet075)
///     for pose in try detector.poses(in: RGBImage(contentsOfFile: "photo.jpg")) {
///         print(pose.score, pose[.nose].position)          // image pixels
///     }
///
/// and for video, every frame's people with their identities:
///
///     for try await frame in detector.poses(from: MediaFrames(path: "clip.mp4")) {
///         for pose in frame.poses { print(frame.index, pose.id ?? 0, pose[.nose].position) }
///     }
///
/// (see `poses(from:)` (module `Streaming`)).
///
/// The low-level way: fill ``input`` with a frame yourself, call `detect(mappingTo:imageSize:padding:)`,
/// get poses mapped by your transform; pass the letterbox's `PaddingBand` if you know it (the
/// network then computes its rows once), as FrameIO's `NetworkInputWriter` reports it:
///
///     let detector = PoseDetector(model: try PoseNetModel(bundle: bundle, inputSize: 353, outputStride: 16, threads: 2))
///     let writer = try NetworkInputWriter(sourceWidth: 640, sourceHeight: 480, size: 353, scaling: detector.inputScaling)
///     detector.input.withUnsafeMutableBufferPointer { writer.write(frame, into: $0) }
///     let poses = try detector.detect(mappingTo: writer.placement.inputToImage, padding: writer.paddingBand)
///
/// **Thread safety.** A detector is a `final class` that may be shared between threads and
/// tasks: `poses(in:)` and the other one-call methods hold the detector's lock for
/// the whole pass, so concurrent calls run one after another (each pass already uses every core
/// the detector was given; for parallel passes use ``sharingWeights(threads:)``, as
/// `poses(from:)` (module `Streaming`) does). The low-level ``input`` /
/// ``detect(mappingTo:imageSize:padding:afterNetwork:)`` pair and ``decoding`` are not synchronized: use
/// them from one thread, and not at the same time as the one-call methods.
public final class PoseDetector: PoseFinding, FrameInputHolding, @unchecked Sendable {
    public let model: PoseNetModel
    /// How the heads become poses. Its parameters are validated when it is set (an invalid set
    /// is thrown by the next `detect`), not on every frame.
    public var decoding: PoseDecoding {
        get { checkedDecoding.decoding }
        set { checkedDecoding.decoding = newValue }
    }
    private var checkedDecoding: CheckedDecoding
    /// How the one-call methods fit a frame into the square network input.
    public let geometry: InputPlacement.Fit
    /// The one-call methods' lock and planned frame-to-input writer.
    package let frameInputWriters = FrameInputWriters()

    /// The model's input tensor.
    public var input: Tensor { model.input }
    /// The model's input scaling.
    public var inputScaling: InputScaling { model.inputScaling }
    /// Cores one pass uses.
    public var threads: Int { model.threads }

    public init(model: PoseNetModel, decoding: PoseDecoding = PoseDecoding(), geometry: InputPlacement.Fit = .letterbox) {
        self.model = model
        checkedDecoding = CheckedDecoding(decoding)
        self.geometry = geometry
    }

    /// Runs the network on ``/PoseNet/PoseNetModel/input`` and decodes; `transform` maps network-input
    /// pixels to the caller's image pixels. Poses are sorted by score, best first.
    ///
    /// Keypoints are where the network puts them, also outside the image (offsets can point
    /// past the border: a head cut off by the top edge); consumers that need points on the image
    /// clamp them (`Pose.clamped(width:height:)`). `imageSize` is not used by this detector (the
    /// multi-scale detector chooses its input sizes by it). `padding` is the input's letterbox band, if known
    /// (``/PoseNet/PoseNetModel/run(padding:)``).
    ///
    /// - Throws: ``/PoseNet/PoseDecodingError`` for invalid ``decoding`` parameters or heads holding NaN
    ///   or infinity; ``/PoseNet/PoseNetError`` for a `padding` outside the input.
    public func detect(mappingTo transform: ImageTransform, imageSize: (width: Int, height: Int)?,
                       padding: PaddingBand?, afterNetwork: () -> Void) throws -> [Pose] {
        let parameters = try checkedDecoding.validatedParameters()
        if decoding.flipAveraging { try model.runWithFlipAveraging(padding: padding) } else { try model.run(padding: padding) }
        afterNetwork()
        return decoding.poses(from: try model.output, parameters: parameters, mappingTo: transform)
    }

    /// A detector with the same model settings and decoding on `threads` cores, reading this
    /// one's weights (shared, not copied) into activations of its own.
    public func sharingWeights(threads: Int) throws -> PoseDetector {
        PoseDetector(model: try PoseNetModel(weights: model.weights, inputSize: model.inputSize,
                                             outputStride: model.outputStride, threads: threads),
                     decoding: decoding, geometry: geometry)
    }
}
