import ArgumentParser
import MediaPipe
import PoseEvaluation
import PoseKit

/// `posekit pose`: JSON Lines of every person's pose in each image or frame.
struct PoseCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "pose",
        abstract: "Find every person's pose in images or a video stream; write JSON Lines.",
        discussion: """
          posekit pose photo.jpg                     # one JSON line per image
          posekit pose clip.mp4 > poses.jsonl        # one line per frame, with ids
          cat photo.jpg | posekit pose -             # standard input, any format
          posekit pose --overlay out.mp4 clip.mp4    # also the skeletons drawn
          posekit pose --model blazepose photo.jpg   # 33 landmarks, depth, metres

        INPUT: images (JPEG, PNG, PPM, ...), videos (MP4, MKV, WebM, Y4M, ...), a \
        /dev/video camera, directories of them (in name order) or - for standard input, each \
        recognized from its first bytes (ffmpeg decodes what posekit does not read itself). \
        Each image or frame becomes one JSON line on stdout:

          {"source": "clip.mp4", "frame": 0, "width": 640, "height": 480,
           "time": 0, "poses": [{"id": 1, "score": 0.91, "box": [x0, y0, x1, y1],
           "keypoints": [{"part": "nose", "x": 312.4, "y": 88.1,
                          "score": 0.98}, ...]}]}

        Pixels of the original frame; 17 keypoints in COCO order; on video each person keeps \
        an "id" and keypoints are smoothed (--no-smooth: raw). --model blazepose runs \
        MediaPipe's BlazePose (33 keypoints with depth and visibility, "world" in metres; \
        --mask FILE writes the person mask). SIGINT, SIGTERM or SIGHUP stop after the current \
        frame, keep every finished line and exit 130, 143 or 129.

        More examples:
          posekit pose --output-dir poses/ photos/   # a file per input
          posekit pose --accurate photo.jpg          # two sizes merged
          posekit pose --realtime /dev/video0        # a camera, late frames dropped
          posekit pose --hands photo.jpg             # each person's hands too
          posekit pose --format coco --ground-truth gt.json images/*.ppm

        Every option, every field, batches and pipes: docs/cli.md.
        """
    )

    @OptionGroup var model: ModelOptions
    @OptionGroup var decode: DecodeOptions

    @Flag(inversion: .prefixedNo, help: ArgumentHelp(
        "Smooth keypoints over time per person (One-Euro filter; default on for video; not for images)."))
    var smooth: Bool?

    @OptionGroup var accuracy: AccuracyOptions

    @Option(name: .long, help: ArgumentHelp(
        "Output format: jsonl (one JSON object per frame) or coco (one COCO results list over all images).",
        valueName: "jsonl|coco"))
    var format: PoseOutputFormat = .jsonl

    @Option(name: .long, help: ArgumentHelp("With --format coco: COCO ground truth whose image ids to use (matched by file name).", valueName: "path"), completion: .file(extensions: ["json"]))
    var groundTruth: String?

    @Option(name: .long, help: ArgumentHelp(
        "With --model blazepose: also write the person mask (every person's merged) to this path: 8-bit grey (255 = person) as .pgm (binary PGM, one per frame), .png (grey PNG) or .jpg for an image, .mp4, .mkv, .webm, .mov or .y4m for video; .npy keeps the probabilities (float32, [height, width] or [frames, height, width]). The segmentation branch runs only when this is given.",
        valueName: "path"), completion: .file())
    var mask: String?

    @OptionGroup(title: "Images as video") var videoInput: VideoInputOptions

    @OptionGroup(title: "Identities (video)") var tracking: TrackingOptions

    @OptionGroup(title: "Batches") var batch: BatchOptions

    @Flag(name: .customLong("hands"), help: ArgumentHelp(
        "Also find hands (as posekit hands does) and write each in the pose of the person whose wrist is nearest (\"hands\" in each pose; hands nobody's wrist is near in the frame's \"hands\")."))
    var findsHands = false

    @OptionGroup(title: "Hands (with --hands)", visibility: .hidden) var handOptions: HandOptions

    @OptionGroup var output: FrameOutputOptions

    func validate() throws {
        try output.check(batch: batch)
        if smooth == true, !videoInput.video, let image = output.inputs.first(where: { MediaFormat.isPNMName($0) }) {
            throw Self.smoothingNeedsVideo(image)
        }
        if groundTruth != nil && format != .coco { throw ValidationError("--ground-truth is for --format coco (image ids)") }
        if findsHands && format == .coco { throw ValidationError("--format coco writes body keypoints only; --hands is for JSON Lines") }
        if output.coordinates != .pixels && format == .coco { throw ValidationError("--format coco writes pixels, as COCO results are; --coordinates is for JSON Lines") }
        if batch.outputDir != nil && format == .coco {
            throw ValidationError("--format coco writes one list over all images; it does not combine with --output-dir")
        }
        if videoInput.video && format == .coco { throw ValidationError("--format coco lists images one by one; --video makes them one video (use JSON Lines)") }
        if mask != nil && !model.isBlazePose { throw ValidationError("--mask writes BlazePose's person mask: add --model \(ModelOptions.blazePose)") }
        if mask != nil && batch.outputDir != nil { throw ValidationError("--mask writes one file; it does not combine with --output-dir") }
        if model.isBlazePose {
            let given = model.poseNetOnlyOptions(decode, accuracy)
            if !given.isEmpty {
                throw ValidationError("\(given.joined(separator: ", ")) \(given.count == 1 ? "is a PoseNet option" : "are PoseNet options"); --model \(ModelOptions.blazePose) has no use for \(given.count == 1 ? "it" : "them")")
            }
            if format == .coco { throw ValidationError("--format coco writes COCO-17 results of PoseNet; --model \(ModelOptions.blazePose) writes JSON Lines") }
        }
        try accuracy.check(model, decode)
    }

    static func smoothingNeedsVideo(_ input: String) -> ValidationError {
        ValidationError("--smooth smooths keypoints over the frames of a video (Y4M); \(input) is a single image, so there is nothing to smooth. Drop --smooth for images, or add --video to read images as the frames of one video.")
    }

    func run() async throws {
        var coco: CocoExport?
        var finder: (any PoseFrameModel)?
        var handDetector: HandDetector?
        var blazePose: BlazePoseDetector?
        try await FrameRun(options: output, batch: batch, video: videoInput, otherInputs: [groundTruth].compactMap { $0 },
                           otherOutputs: mask.map { [("--mask", $0)] } ?? []).run(prepare: { selected in
            if let mask { try MaskWriter.check(path: mask) }   // before any work
            coco = format == .coco ? try CLIError.reading(groundTruth ?? "") { try CocoExport(groundTruth: groundTruth) } : nil
            let inputs = try coco?.uniqueInputs(selected, arguments: output.inputs, warn: { printToStandardError("posekit: warning: " + $0) }) ?? selected
            blazePose = model.isBlazePose ? try model.makeBlazePose(decode, mask: mask != nil) : nil
            finder = try blazePose ?? accuracy.makeDetector(model, decode)
            // The body model seeding hands is the finder itself (run once per frame: BodyAndHandsModel).
            if findsHands { handDetector = try handOptions.makeDetector(threads: model.threads, precision: model.precision, loadsBodyModel: false) }
            return inputs
        }, openOutputs: {
            guard let mask, let blazePose else { return [] }
            let maskWriter = try MaskWriter(path: mask)
            // The stream's one worker calls it, frame after frame.
            nonisolated(unsafe) let writer = maskWriter
            blazePose.maskHandler = { mask, frame in
                if writer.takesProbabilities {
                    try writer.write(probabilities: mask.values, width: mask.width, height: mask.height, of: frame)
                } else {
                    try writer.write(mask.grayLevels, width: mask.width, height: mask.height, of: frame)
                }
            }
            return [maskWriter.output]
        }, process: { stream, json, overlay, progressReporter in
            // --format coco never runs with --output-dir (validate), so a batch's coco is nil.
            try await findPoses(in: stream, finder!, handDetector, json: json, overlay: overlay, coco: &coco, progressReporter)
        }, finish: { json in
            if let coco {
                try Array(coco.encoded().utf8).withUnsafeBytes { try json.write($0) }
                try json.endRecord()
            }
        })
    }

    /// Poses of every frame of `stream` (the library's pipeline: `poses(inMediaAt:)`, or with
    /// `--video` `poses(from:)` on the inputs' images as one video, `ImagesAsVideo`) as JSON Lines
    /// into `json`, one record per frame, and annotated frames into `overlay` when given
    /// (``FrameLoop``). With `coco`, the poses of images are collected there instead. With
    /// `handDetector`, the finder and it run as one model (`BodyAndHandsModel`: the finder's poses
    /// seed the hands, each hand is held by the person whose wrist and forearm lead to it:
    /// `PosesWithHands.holders`).
    private func findPoses(in stream: [String], _ finder: any PoseFrameModel, _ handDetector: HandDetector?, json: ByteSink, overlay: MediaWriter?,
                           coco: inout CocoExport?, _ progressReporter: ProgressReporter) async throws {
        let opened = try StreamInput(stream, asVideo: videoInput.video, frameRate: videoInput.frameRate, overlay: overlay, progressReporter)
        let (input, images, source) = (opened.input, opened.images, opened.source(ofFrame:))
        let loop = FrameLoop(json: json, overlay: overlay, flushed: [json, overlay?.output.sink].compactMap { $0 }, progress: progressReporter)
        let (smooth, tracking, realtime) = (smooth ?? true, tracking.configuration, output.realtime)
        if let handDetector {
            let both = BodyAndHandsModel(body: finder, hands: handDetector)
            if let images {
                try await run(loop, both.frames(from: images, smoothing: smooth, tracking: tracking, dropsLateFrames: realtime).makeAsyncIterator(),
                              source: source, coco: &coco) { ($0.poses, $0) }
            } else {
                try await run(loop, both.frames(from: MediaFrames(path: input), smoothing: smooth, tracking: tracking,
                                                dropsLateFrames: realtime).makeAsyncIterator(),
                              source: source, coco: &coco) { ($0.poses, $0) }
            }
        } else if let images {
            try await run(loop, finder.poses(from: images, smoothing: smooth, tracking: tracking, dropsLateFrames: realtime).makeAsyncIterator(),
                          source: source, coco: &coco) { ($0, nil) }
        } else {
            try await run(loop, finder.poses(inMediaAt: input, smoothing: smooth, tracking: tracking, dropsLateFrames: realtime).makeAsyncIterator(),
                          source: source, coco: &coco) { ($0, nil) }
        }
    }

    /// Runs the loop over `frames`, whose output holds each frame's people and, with --hands, its
    /// hands (`found`): a JSON line per frame (or its poses into `coco`) naming the frame's
    /// `source`, the people and hands drawn on the overlay.
    private func run<Frames: FrameIterator, Output>(_ loop: FrameLoop, _ frames: Frames, source: @escaping (Int) -> String,
                                                    coco: inout CocoExport?, found: @escaping (Output) -> ([Pose], PosesWithHands?)) async throws
    where Frames.Element == ProcessedFrame<Output> {
        var collected = coco
        defer { coco = collected }
        try await loop.run(frames, lines: { frame, text in
            let (poses, hands) = found(frame.output)
            let input = source(frame.index)
            if smooth == true && frame.frame.isStillImage { throw Self.smoothingNeedsVideo(input) }
            if collected != nil {
                guard frame.frame.isStillImage else { throw CLIError("--format coco is for images; use JSON Lines for video") }
                try collected!.add(poses, input: input, width: frame.width, height: frame.height)
                return
            }
            let assigned = hands?.handsByPerson
            PoseJSONLinesEncoder.append(source: input, frame: frame.index, width: frame.width, height: frame.height,
                                        time: frame.time, poses: poses, hands: assigned?.perPose,
                                        unassignedHands: assigned?.others ?? [], coordinates: output.coordinates, to: &text)
        }, draw: { frame, image in
            let (poses, hands) = found(frame.output)
            PoseOverlay().draw(poses, on: &image)
            PoseOverlay().drawHands(hands?.hands ?? [], on: &image, ids: output.overlayIds)
            if output.overlayIds { PoseOverlay().drawIDs(poses, on: &image) }
        })
    }
}
