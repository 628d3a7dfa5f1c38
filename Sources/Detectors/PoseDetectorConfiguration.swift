import FrameIO
import PoseCore
import PoseNet
import Tensor

extension PoseDetector {
    /// Everything that decides what a ``PoseDetector`` finds, besides its weights. The defaults
    /// are the one default of `posekit pose`, `posekit actions` and the library (the commands
    /// read their option defaults from here), so a clip gives one answer whichever way it is run:
    /// `posekit actions clip.mp4` and `posekit pose clip.mp4 | posekit actions --poses -` give
    /// the same summary. (Video streams are also smoothed by default, `poses(from:smoothing:)`,
    /// in all three.)
    ///
    ///     var configuration = PoseDetector.Configuration()
    ///     configuration.inputSize = 353                      // faster, less accurate
    ///     configuration.decoding.parameters.maxPoses = 50    // big crowds
    ///     let detector = try PoseDetector(model: .mobilenet075, configuration: configuration)
    public struct Configuration: Sendable, Equatable {
        /// Side of the square network input in pixels. Sizes `16k + 1` (257, 353, 513) align the
        /// output grid with the image. 513 finds the most (COCO keypoint AP 0.52 on the shared
        /// images, against 0.38 at 353 and 0.29 at 257) and still runs 70+ frames/s on 2 cores.
        public var inputSize: Int
        /// Output stride of the heads: 8, 16 or 32 (smaller is finer and slower).
        public var outputStride: Int
        /// How a frame is fitted to the square input: `.letterbox` keeps its aspect ratio and pads
        /// bottom and right; `.stretch` scales each axis. Poses come back in frame pixels either way.
        public var geometry: InputPlacement.Fit
        /// Worker threads for the network; nil uses every core.
        public var threads: Int?
        /// The arithmetic of the network's 1×1 convolutions: `.fp32` (the default), `.bf16`, `.int8`,
        /// or `.auto` (the fastest this CPU runs within PoseKit's accuracy bar, else fp32). An explicit
        /// `.bf16` or `.int8` on a CPU without its instructions fails the detector's construction with
        /// `PrecisionUnavailable`. Speed and COCO AP of each: docs/speed.md.
        public var precision: Precision
        /// How the network's heads become poses: several people per frame, at most 20, each
        /// scoring at least 0.05 (see ``/PoseNet/PoseDecoding`` and ``/PoseNet/MultiPoseParameters``).
        public var decoding: PoseDecoding

        /// The poses a decoded frame keeps by default: a pose scoring under 0.05 is nearly always a
        /// duplicate of a better one or noise (``/PoseNet/MultiPoseParameters`` itself keeps all, as TF.js).
        public static let defaultMinPoseScore = 0.05

        /// The most poses a frame gets by default: COCO scores 20 detections per image, and a
        /// cap of 10 (TF.js's, ``/PoseNet/MultiPoseParameters``' own default) cuts real people in crowds.
        /// Decoding costs the same per pose however many there are (`posekit bench decode`).
        public static let defaultMaxPoses = 20

        public init(inputSize: Int = 513, outputStride: Int = 16, geometry: InputPlacement.Fit = .letterbox,
                    threads: Int? = nil,
                    decoding: PoseDecoding = PoseDecoding(parameters: MultiPoseParameters(
                        maxPoses: Configuration.defaultMaxPoses, minPoseScore: Configuration.defaultMinPoseScore)),
                    precision: Precision = .fp32) {
            self.inputSize = inputSize
            self.precision = precision
            self.outputStride = outputStride
            self.geometry = geometry
            self.threads = threads
            self.decoding = decoding
        }

        /// The `posekit pose`, `posekit actions` and `posekit eval` defaults.
        public static let `default` = Configuration()

        /// The same as `.default`: action recognition finds poses as `posekit pose` does (input
        /// 513, smoothed video). ActionNet was trained on poses found at 353, unsmoothed, and
        /// counts every shared clip exactly on both (docs/actions.md "One answer").
        @available(*, deprecated, renamed: "default", message: "pose and actions share one default")
        public static let actionRecognition = Configuration()

        /// Threads the network uses: ``threads``, or every core.
        public var resolvedThreads: Int { threads ?? Parallelism.defaultThreads }
    }
}
