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
