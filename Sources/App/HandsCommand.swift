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
            detector = try hands.makeDetector(threads: threads)
            return inputs
        }, process: { stream, json, overlay, progressReporter in
            try await findHands(in: stream, detector!, json: json, overlay: overlay, progressReporter)
        })
    }

    /// The hands of every frame of `stream` (the library's pipeline: `HandDetector.hands(inMediaAt:)`,
    /// or with `--video` `hands(from:)` on the images as one video, `ImagesAsVideo`) as JSON Lines
    /// into `json`, and annotated frames into `overlay` when given.
    private func findHands(in stream: [String], _ detector: HandDetector, json: ByteSink, overlay: MediaWriter?,
                           _ progressReporter: ProgressReporter) async throws {
        for input in stream { try InputDirectory.requireFound(input) }
        let input = stream[0]
        let probe = stream.count == 1 ? InputAnnouncement.begin(input, progressReporter) : nil
        if let overlay, probe?.hasAudio == true, overlay.audioSource == nil { overlay.audioSource = input }
        if videoInput.video {
            let frames = ImagesAsVideo(paths: stream, frameRate: videoInput.frameRate)
            try await write(detector.hands(from: frames, dropsLateFrames: output.realtime), source: { frames.inputs.input(ofFrame: $0) ?? input },
                            json: json, overlay: overlay, progressReporter)
        } else {
            try await write(detector.hands(inMediaAt: input, dropsLateFrames: output.realtime), source: { _ in input }, json: json, overlay: overlay, progressReporter)
        }
    }

    /// Writes what `sequence` delivers: a JSON line per frame naming the frame's `source`, and
    /// annotated frames into `overlay`.
    private func write<Frames>(_ sequence: HandDetectionSequence<Frames>, source: (Int) -> String, json: ByteSink,
                               overlay: MediaWriter?, _ progressReporter: ProgressReporter) async throws {
        var text = JSONText()
        var pinches = PinchGestures(configuration: HandGestureProcessor.Configuration(pinchMaxDistance: pinchDistance))
        for try await detected in sequence {
            text.reset()
            HandJSONLinesEncoder.append(source: source(detected.index), frame: detected.index, width: detected.width, height: detected.height,
                                        time: detected.time, hands: detected.hands, coordinates: output.coordinates, to: &text)
            try text.bytes.withUnsafeBytes { try json.write($0) }
            try json.endRecord()
            if gestures {
                let updates = pinches.update(detected)
                for (hand, update) in updates where HandGestureJSON.isEvent(update) {
                    text.reset()
                    HandGestureJSON.write(update, source: source(detected.index), frame: detected.index, time: detected.time, hand: hand,
                                          coordinates: output.coordinates, width: detected.width, height: detected.height, to: &text)
                    try text.bytes.withUnsafeBytes { try json.write($0) }
                    try json.endRecord()
                }
            }
            if let overlay {
                var image = detected.frame.rgb()
                let poses = detected.hands.map(\.pose)
                PoseOverlay().draw(poses, on: &image)
                if output.overlayIds { PoseOverlay().drawIDs(poses, on: &image) }
                if gestures { pinches.draw(on: &image) }
                try overlay.write(image, of: detected.frame)
            }
            progressReporter.frameDone(dropped: detected.droppedBefore)
            try InputCancellation.check()
        }
    }
}
