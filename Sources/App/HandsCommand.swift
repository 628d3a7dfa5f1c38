import ArgumentParser
import PoseKit

/// `posekit hands`: JSON Lines of every hand (21 points, handedness, world points) in each image or frame.
struct HandsCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "hands",
        abstract: "Find hands (21 points each, which hand, 3D points in metres) in images or video; write JSON Lines.",
        discussion: """
        MediaPipe's hand pipeline (0.10.14's models, imported: Weights/palm_detection_full.pkw and \
        hand_landmark_full.pkw, or _lite with --hand-model lite) on every image or frame. INPUT is \
        taken as `posekit pose` takes it: PNM and Y4M directly, JPEG, PNG, MP4, ... through ffmpeg, \
        directories (every image and video in name order), - for standard input. Each image or \
        frame becomes one JSON line:

          {"source": "photo.jpg", "frame": 0, "width": 640, "height": 480,
           "hands": [{"handedness": "right", "score": 0.9987, "box": [x0, y0, x1, y1],
                      "keypoints": [{"part": "wrist", "x": 312.4, "y": 88.1, "z": 0,
                                     "score": 0.9987}, ...],
                      "world": [{"x": 0.0123, "y": 0.0841, "z": 0.0112}, ...]}]}

        The 21 keypoints are in MediaPipe's order, named as Apple's Vision names them: wrist, \
        thumbCMC, thumbMP, thumbIP, thumbTip, indexMCP, indexPIP, indexDIP, indexTip, middleMCP, \
        ..., littleTip. x and y are pixels (MediaPipe's normalized landmark times the width or \
        height); z is the depth relative to the wrist in pixels of x (smaller is nearer the \
        camera); "world" holds the same points in metres about the hand's centre. "score" is the \
        hand model's presence (each keypoint carries it: the model gives no per-point score). \
        --coordinates normalized or vision as for pose (z then a fraction of the width).

        "handedness" is the person's own hand in the image as given. MediaPipe's label assumes a \
        mirrored selfie image, so it says the opposite; --mirrored says the input is mirrored (a \
        front camera's preview) and keeps MediaPipe's label.

        On video, hands are tracked as MediaPipe tracks them: a hand is looked for in the next \
        frame where its points say it will be, and keeps its "id" (1, 2, ... in order of first \
        appearance) while it is found there; the palm detector runs only while fewer than \
        --max-hands hands are tracked. Positions are not smoothed (MediaPipe's hands are not). \
        With --realtime (a live source) frames that arrive while a frame is processed are dropped \
        (as for pose) and tracking goes on from the last frame processed.

        EXAMPLES
          posekit hands photo.jpg
          posekit hands --max-hands 4 --coordinates normalized photos/
          posekit hands --hand-model lite clip.mp4 > hands.jsonl
          posekit hands --overlay hands.mp4 --overlay-ids clip.mp4 > hands.jsonl
          posekit hands --video --fps 25 frames/          # the images of frames/ as one video
          ffmpeg -loglevel error -f v4l2 -i /dev/video0 -f yuv4mpegpipe - \\
            | posekit hands --mirrored --realtime -
          posekit pose --hands photo.jpg            # each person's body and hands in one line
          posekit hands --hand-sources palms photo.jpg   # MediaPipe's pipeline exactly (no body model)
          posekit hands --gestures --overlay pinch.mp4 clip.mp4 > hands.jsonl   # pinch events, path drawn

        HANDS THROUGH THE BODY. By default (--hand-sources palms+body) the body model (PoseNet) \
        also runs, and each wrist it finds that no palm hand holds seeds a hand region: the small \
        hands of people photographed whole, which MediaPipe's palm detector misses. Such a hand's \
        "score" is the body model's confidence in the wrist. --hand-sources palms is MediaPipe's \
        pipeline exactly. How the rule was chosen and what it finds: docs/hands.md.

        GESTURES. --gestures adds the pinch of Apple's sample "Detect Body and Hand Pose with \
        Vision": thumb tip and index tip closer than --pinch-distance hand sizes (the palm's \
        longest side) for 3 frames is "pinched", farther for 3 frames "apart". A "gesture" line \
        follows a frame's line for each hand whose state changed or whose pinch path grew, the \
        path in the frame line's --coordinates (docs/cli.md, "Gesture events"); with --overlay the \
        path is drawn as the sample draws it.

        Output streams, signals and exit statuses are as for pose.
        """
    )

    @OptionGroup(title: "Hands") var hands: HandOptions

    @Option(name: .long, help: ArgumentHelp("Worker threads for the networks (default: all cores; \(Limits.threads.text)).", valueName: "n"))
    var threads: Int?

    @Option(name: .long, help: ArgumentHelp(
        "Arithmetic of the networks' 1x1 convolutions: fp32 (default), bf16, int8 or auto, as for pose (an explicit one this CPU lacks is an error).",
        valueName: "fp32|bf16|int8|auto"))
    var precision: Precision = .fp32

    @Flag(help: "Add pinch gesture events (\"type\": \"gesture\" lines) and, with --overlay, draw the pinch path.")
    var gestures = false

    @Option(name: .long, help: ArgumentHelp(
        "With --gestures: thumb and index tips closer than this many hand sizes are a pinch (0.05...2; the sample's 40 points at the size a palm has on its preview).",
        valueName: "hand sizes"))
    var pinchDistance = HandGestureProcessor.Configuration().pinchMaxDistance

    @OptionGroup var output: FrameOutputOptions

    @OptionGroup(title: "Images as video") var videoInput: VideoInputOptions

    @OptionGroup(title: "Batches") var batch: BatchOptions

    func validate() throws {
        try output.check(batch: batch)
        if let threads { try Limits.threads.check(threads, "--threads") }
        guard pinchDistance.isFinite, (0.05...2).contains(pinchDistance) else {
            throw ValidationError("--pinch-distance must be in 0.05...2 hand sizes, not \(pinchDistance)")
        }
        if pinchDistance != HandGestureProcessor.Configuration().pinchMaxDistance, !gestures {
            throw ValidationError("--pinch-distance needs --gestures")
        }
    }

    func run() async throws {
        var detector: HandDetector?
        try await FrameRun(options: output, batch: batch, video: videoInput).run(prepare: { inputs in
            detector = try hands.makeDetector(threads: threads, precision: precision)
            return inputs
        }, process: { stream, json, overlay, progressReporter in
            try await findHands(in: stream, detector!, json: json, overlay: overlay, progressReporter)
        })
    }

    /// The hands of every frame of `stream` (the library's pipeline: `HandDetector.hands(inMediaAt:)`,
    /// or with `--video` `hands(from:)` on the images as one video, `ImagesAsVideo`) as JSON Lines
    /// into `json` (a line per frame, then a gesture line per hand whose pinch changed), and
    /// annotated frames into `overlay` when given (``FrameLoop``).
    private func findHands(in stream: [String], _ detector: HandDetector, json: ByteSink, overlay: MediaWriter?,
                           _ progressReporter: ProgressReporter) async throws {
        let opened = try StreamInput(stream, video: videoInput, overlay: overlay, progressReporter)
        let source = opened.source(ofFrame:)
        var pinches = PinchGestures(configuration: HandGestureProcessor.Configuration(pinchMaxDistance: pinchDistance))
        let loop = FrameLoop(json: json, overlay: overlay, flushed: [json, overlay?.output.sink].compactMap { $0 }, progress: progressReporter)
        func run<Frames: FrameIterator>(_ frames: Frames) async throws where Frames.Element == DetectedHands {
            try await loop.run(frames, lines: { detected, text in
            HandJSONLinesEncoder.append(source: source(detected.index), frame: detected.index, width: detected.width, height: detected.height,
                                        time: detected.time, hands: detected.hands, coordinates: output.coordinates, to: &text)
            guard gestures else { return }
            for (hand, update) in pinches.update(detected) where HandGestureJSON.isEvent(update) {
                HandGestureJSON.write(update, source: source(detected.index), frame: detected.index, time: detected.time, hand: hand,
                                      coordinates: output.coordinates, width: detected.width, height: detected.height, to: &text)
            }
        }, draw: { detected, image in
            PoseOverlay().drawHands(detected.hands, on: &image, ids: output.overlayIds)
            if gestures { pinches.draw(on: &image) }
        })
        }
        if let images = opened.images {
            try await run(detector.hands(from: images, dropsLateFrames: output.realtime).makeAsyncIterator())
        } else {
            try await run(detector.hands(inMediaAt: opened.input, dropsLateFrames: output.realtime).makeAsyncIterator())
        }
    }
}
