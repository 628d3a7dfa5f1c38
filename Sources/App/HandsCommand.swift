import ArgumentParser
import PoseKit

/// `posekit hands`: JSON Lines of every hand (21 points, handedness, world points) in each image or frame.
struct HandsCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "hands",
        abstract: "Find hands (21 points each, which hand, 3D points in metres) in images or video; write JSON Lines.",
        discussion: """
          posekit hands photo.jpg                      # every hand: 21 points each
          posekit hands clip.mp4 > hands.jsonl         # tracked, each hand an id
          posekit hands --overlay out.mp4 clip.mp4     # also the hands drawn
          posekit hands --gestures clip.mp4            # and pinch events
          posekit pose --hands photo.jpg               # bodies with their hands

        MediaPipe's hand pipeline (0.10.14's palm detector and hand landmarks, imported by make \
        weights), on inputs taken as posekit pose takes them. Each image or frame becomes one \
        JSON line:

          {"source": "photo.jpg", "frame": 0, "width": 640, "height": 480,
           "hands": [{"handedness": "right", "score": 0.9987,
                      "box": [x0, y0, x1, y1],
                      "keypoints": [{"part": "wrist", "x": 312.4, "y": 88.1,
                                     "z": 0, "score": 0.9987}, ...],
                      "world": [{"x": 0.0123, "y": 0.0841, "z": 0.0112}, ...]}]}

        21 keypoints in MediaPipe's order with Vision's names (wrist, thumbCMC, ..., \
        littleTip), pixels, z relative to the wrist; "world" in metres; "handedness" is the \
        person's own hand (--mirrored for a selfie camera). By default the body model also runs \
        and seeds hands at the wrists the palm detector misses (--hand-sources palms: \
        MediaPipe's pipeline exactly).

        More examples:
          posekit hands --hand-model lite --max-hands 4 photos/
          posekit hands --mirrored --realtime /dev/video0
          posekit hands --video --fps 25 frames/       # images as one video

        Every option and field, the pinch and the body seeds: docs/cli.md, docs/hands.md.
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
        let opened = try StreamInput(stream, asVideo: videoInput.video, frameRate: videoInput.frameRate, overlay: overlay, progressReporter)
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
