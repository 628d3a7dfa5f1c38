import ArgumentParser
import FrameIO
import PoseNet

/// `posekit pose`: JSON Lines of every person's pose in each image or frame.
struct PoseCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "pose",
        abstract: "Find every person's pose in images or a video stream; write JSON Lines.",
        discussion: """
        INPUT is a .ppm/.pgm/.pnm image, a .y4m video, or - for standard input (PNM or Y4M is \
        recognised from the first bytes). Each image or frame becomes one JSON line on stdout:

          {"source": "clip.y4m", "frame": 0, "width": 640, "height": 480,
           "time": 0.0, "poses": [{"score": 0.91, "box": [x0, y0, x1, y1],
           "keypoints": [{"part": "nose", "x": 312.4, "y": 88.1,
                          "score": 0.98}, ...]}]}

        Coordinates are pixels of the original frame; "time" (seconds) is present for video only; \
        the 17 keypoints are in COCO order (nose, leftEye, rightEye, ..., rightAnkle).

        On video each pose also has "id": the person's identity, 1, 2, 3, ... in order of first \
        appearance, kept while they stay in view (and through gaps up to 0.5 s), never reused \
        within the stream. Video keypoints are smoothed over time by a One-Euro filter per \
        person and keypoint (--no-smooth for the raw per-frame positions); streams without a \
        frame rate (Y4M F0:0) are taken as 30 frames/s for tracking and smoothing.

        --accurate trades speed for accuracy (about 20x slower): flip averaging, output stride 8 \
        and two input sizes (--input-size, default 769, and 0.8 of it: 609) merged before decoding.

        --format coco writes one JSON list for all image inputs, the results format pycocotools' \
        loadRes reads; image_id comes from --ground-truth (matched by file name) or else from \
        the digits of each file name (000000000785.jpg -> 785).

        EXAMPLES
          posekit pose photo.ppm
          ffmpeg -loglevel error -i photo.jpg -f image2pipe -c:v ppm - \\
            | posekit pose -
          ffmpeg -loglevel error -i clip.mp4 -f yuv4mpegpipe - \\
            | posekit pose - > poses.jsonl
          ffmpeg -loglevel error -f v4l2 -i /dev/video0 -f yuv4mpegpipe - \\
            | posekit pose --realtime -
          ffmpeg -loglevel error -i clip.mp4 -f yuv4mpegpipe - \\
            | posekit pose --overlay - --json poses.jsonl - \\
            | ffmpeg -loglevel error -y -f yuv4mpegpipe -i - overlay.mp4
          posekit pose --accurate photo.ppm
          posekit pose --format coco --ground-truth gt.json images/*.ppm > results.json
        """
    )

    @OptionGroup var model: ModelOptions
    @OptionGroup var decode: DecodeOptions

    @Option(name: .long, help: ArgumentHelp(
        "Also write annotated frames (Y4M for video input, PPM for images) to this path, or - for stdout (then JSON goes to --json).",
        valueName: "path|-"))
    var overlay: String?

    @Option(name: .long, help: ArgumentHelp("Write the JSON Lines here instead of stdout.", valueName: "path"))
    var json: String?

    @Flag(help: "Drop frames that arrive while the previous one is still being processed (live sources); the count of dropped frames is reported.")
    var realtime = false

    @Flag(inversion: .prefixedNo, help: ArgumentHelp(
        "Smooth keypoints over time per person (One-Euro filter; default on for video; not for images)."))
    var smooth: Bool?

    @OptionGroup var accuracy: AccuracyOptions

    @Option(name: .long, help: ArgumentHelp(
        "Output format: jsonl (one JSON object per frame) or coco (one COCO results list over all images).",
        valueName: "jsonl|coco"))
    var format: PoseOutputFormat = .jsonl

    @Option(name: .long, help: ArgumentHelp("With --format coco: COCO ground truth whose image ids to use (matched by file name).", valueName: "path"))
    var groundTruth: String?

    @Flag(help: "Show progress (frames, frames/s, dropped) on stderr even when it is not a terminal.")
    var progress = false

    @Argument(help: ArgumentHelp("Images (.ppm/.pgm/.pnm), Y4M videos, or - for standard input.", valueName: "input"))
    var inputs: [String]

    func validate() throws {
        if inputs.isEmpty { throw ValidationError("give at least one input (a file, or - for stdin)") }
        if inputs.filter({ $0 == "-" }).count > 1 { throw ValidationError("standard input (-) can be read only once") }
        if overlay == "-" && json == nil { throw ValidationError("--overlay - writes frames to stdout, so give --json PATH for the JSON Lines") }
        if overlay == "-" && json == "-" { throw ValidationError("--overlay - and --json - cannot both use stdout") }
        if smooth == true, let image = inputs.first(where: { PoseOutputFormat.looksLikeImage($0) }) {
            throw Self.smoothingNeedsVideo(image)
        }
        if groundTruth != nil && format != .coco { throw ValidationError("--ground-truth is for --format coco (image ids)") }
        try accuracy.check(model, decode)
    }

    static func smoothingNeedsVideo(_ input: String) -> ValidationError {
        ValidationError("--smooth smooths keypoints over the frames of a video (Y4M); \(input) is a single image, so there is nothing to smooth. Drop --smooth for images.")
    }

    func run() throws {
        let detector = try accuracy.makeDetector(model, decode)
        let jsonSink = try openSink(json ?? "-")
        var coco = format == .coco ? try CocoExport(groundTruth: groundTruth) : nil
        var overlayOutput = try overlay.map { OverlayOutput(sink: try openSink($0)) }
        let progressReporter = ProgressReporter(forced: progress)
        var failures = 0
        var text = JSONText()
        for input in inputs {
            do {
                let reader = try FrameReader(path: input)
                let isVideo = reader.format == .y4m
                if smooth == true && !isVideo { throw Self.smoothingNeedsVideo(input) }
                if coco != nil && isVideo { throw CLIError("--format coco is for images; use JSON Lines for video") }
                var stream = isVideo ? PoseStream(smoothing: smooth ?? true) : nil
                let source = FrameSource(reader: reader, networkInput: detector.input, geometry: model.geometry,
                                         wantsRGB: overlayOutput != nil)
                let name = input == "-" ? "-" : input
                try source.forEachFrame(realtime: realtime) { slot, dropped in
                    var poses = try detector.detect(mappingTo: slot.transform, imageSize: (slot.width, slot.height),
                                                    afterNetwork: slot.readNext)
                    var ids: [Int]?
                    if stream != nil {
                        (poses, ids) = stream!.process(poses, frameIndex: slot.frameIndex, time: slot.time)
                    }
                    if coco != nil {
                        try coco!.add(poses, input: input)
                    } else {
                        text.reset()
                        PoseJSON.append(source: name, frame: slot.frameIndex, width: slot.width, height: slot.height,
                                        time: slot.time, poses: poses, ids: ids, to: &text)
                        try text.bytes.withUnsafeBytes { try jsonSink.write($0) }
                    }
                    if overlayOutput != nil {
                        PoseOverlay().draw(poses, on: &slot.rgb)
                        try overlayOutput!.write(slot.rgb, from: reader, input: input)
                    }
                    progressReporter.frameDone(dropped: dropped)
                }
            } catch FrameIOError.brokenPipe {
                throw ExitCode(141)  // the reader of our output went away: stop quietly, like SIGPIPE would
            } catch let usage as ValidationError {
                throw usage
            } catch {
                printToStandardError("posekit: error: \(input): \(CLIError.describe(error))")
                failures += 1
            }
            do { try jsonSink.flush(); try overlayOutput?.flush() } catch FrameIOError.brokenPipe { throw ExitCode(141) }
        }
        if let coco {
            do {
                try Array(coco.encoded().utf8).withUnsafeBytes { try jsonSink.write($0) }
                try jsonSink.flush()
            } catch FrameIOError.brokenPipe { throw ExitCode(141) }
        }
        progressReporter.finish()
        if realtime && progressReporter.dropped > 0 {
            printToStandardError("posekit: dropped \(progressReporter.dropped) late frame(s) of \(progressReporter.frames + progressReporter.dropped) (--realtime)")
        }
        if failures > 0 { throw ExitCode(1) }
    }
}

/// Annotated frames out: Y4M (C420, same frame rate) for video input, concatenated PPM for images.
struct OverlayOutput {
    let sink: ByteSink
    private var y4m: Y4MWriter?
    private var ppm: PPMWriter?

    init(sink: ByteSink) { self.sink = sink }

    mutating func write(_ image: RGBImage, from reader: FrameReader, input: String) throws {
        switch reader.format {
        case .y4m:
            guard ppm == nil else { throw CLIError("--overlay: cannot mix video and image inputs in one overlay stream") }
            if y4m == nil {
                y4m = Y4MWriter(sink: sink, width: image.width, height: image.height,
                                    frameRate: reader.frameRate ?? Ratio(25, 1))
            }
            guard y4m!.header.width == image.width, y4m!.header.height == image.height else {
                throw CLIError("--overlay: \(input) is \(image.width)x\(image.height) but the overlay stream is \(y4m!.header.width)x\(y4m!.header.height)")
            }
            try y4m!.write(image)
        case .pnm:
            guard y4m == nil else { throw CLIError("--overlay: cannot mix video and image inputs in one overlay stream") }
            if ppm == nil { ppm = PPMWriter(sink: sink) }
            try ppm!.write(image)
        }
    }

    func flush() throws { try sink.flush() }
}
