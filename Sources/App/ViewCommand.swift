import ArgumentParser
import Foundation
import PoseKit
import LiveView
import ViewServer

/// `posekit view`: the live pipeline in a browser (ViewServer), its JSON Lines as ever.
struct ViewCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "view",
        abstract: "Watch the pipeline live in a browser: frames with each person's wireframe, hands, the pinch stroke, the action and its repetitions.",
        discussion: """
        SOURCE is taken as `posekit pose` takes it: a webcam (/dev/video0, through ffmpeg), a video \
        file (played at its own frame rate, as if live), a Y4M pipe or - for standard input. posekit \
        serves one page at the printed address (http://127.0.0.1:8080/ by default: this machine only; \
        --listen ADDRESS:PORT to change it, port 0 for any free port) showing the newest frame with \
        each person's wireframe and id (PoseNet, or --model blazepose), hands in their side's colour \
        (--hands), the pinch stroke (--gestures), the followed person's action with its confidence and \
        repetitions (ActionNet, or --classifier MODEL.mlmodel), a Summary (seconds per action, \
        repetitions), the frames per second shown and the delay from a frame's arrival to its display.

        The JSON Lines are written as ever, on stdout or to --json FILE: each frame's line as \
        `posekit pose` writes it (with "hands" under --hands), the pinch's "gesture" lines as \
        `posekit hands --gestures` writes them, and the action events as `posekit actions` writes \
        them ("prediction", "rep", "rejected_rep", the "summary" last); event lines carry "type", \
        frame lines do not (`posekit actions --poses` skips the events).

        Live: frames that arrive while a frame is processed are dropped (as --realtime), never \
        queued; each viewer gets the newest frame it can take, so a slow or stalled browser never \
        slows the pipeline, the JSON or another viewer. --every-frame processes every frame of a \
        file or pipe in order instead (as fast as the pipeline goes: for checking a clip frame by frame).

        When the source ends, the page keeps the last frame and the final Summary until Ctrl-C \
        (--exit-at-end: exit at once). Ctrl-C (SIGINT, SIGTERM, SIGHUP) stops capture, the server \
        and ffmpeg, writes the summary of what was seen and exits 130 (143, 129).

        EXAMPLES
          posekit view /dev/video0                         # open the printed address in a browser
          posekit view --hands --gestures /dev/video0      # hands, and the pinch drawing
          posekit view --json session.jsonl workout.mp4    # a clip played live; the JSON to a file
          posekit view --classifier ExerciseClassifier.mlmodel /dev/video0
          posekit view --listen 0.0.0.0:8080 /dev/video0   # other machines too (anyone on the network)
          ffmpeg -loglevel error -f v4l2 -i /dev/video0 -f yuv4mpegpipe - | posekit view -
        """)

    @Argument(help: ArgumentHelp("A webcam (/dev/video0), a video file, a Y4M pipe, or - for standard input.", valueName: "source"),
              completion: .file())
    var source: String

    @Option(name: .long, help: ArgumentHelp("Where the page is served: ADDRESS:PORT (default \(ListenAddress.default): this machine only; 0.0.0.0:PORT for every network; port 0 for any free port).",
                                            valueName: "address:port"))
    var listen: String = ListenAddress.default.description

    @OptionGroup var model: ModelOptions
    @OptionGroup var decode: DecodeOptions

    @Flag(name: .customLong("hands"), help: "Also find hands (as posekit pose --hands), drawn in their side's colour.")
    var findsHands = false

    @OptionGroup(title: "Hands (with --hands)") var handOptions: HandOptions

    @Flag(help: "Draw the pinch stroke (as posekit hands --gestures) and write its gesture lines; implies --hands.")
    var gestures = false

    @Option(name: .long, help: ArgumentHelp("With --gestures: thumb and index tips closer than this many hand sizes are a pinch (0.05...2).", valueName: "hand sizes"))
    var pinchDistance = HandGestureProcessor.Configuration().pinchMaxDistance

    @Flag(inversion: .prefixedNo, help: "Recognize the followed person's action and count repetitions (as posekit actions).")
    var actions = true

    @Option(name: .long, help: ArgumentHelp("ActionNet's weights (name or path).", valueName: "name|path"), completion: .file(extensions: ["pkw"]))
    var weights: String = ActionRecognizer.defaultWeights

    @Option(name: .long, help: ArgumentHelp("A Create ML action classifier (.mlmodel) to run instead of ActionNet (as posekit actions --classifier).", valueName: "path|name"),
            completion: .file(extensions: ["mlmodel"]))
    var classifier: String?

    @Option(name: .long, help: ArgumentHelp("Windows whose top probability is lower are labeled low_confidence (\(Limits.probability.text)).", valueName: "x"))
    var confidence: Double = 0.5

    @Option(name: .long, help: ArgumentHelp("Write the JSON Lines here instead of stdout.", valueName: "path"), completion: .file(extensions: ["jsonl"]))
    var json: String?

    @Option(name: .long, help: ArgumentHelp("Keypoints in the JSON Lines: pixels, normalized or vision (the page always gets pixels).", valueName: "pixels|normalized|vision"))
    var coordinates: KeypointCoordinates = .pixels

    @Flag(help: "Process every frame of a file or pipe in order, never dropping one (the default drops late frames, as a live camera).")
    var everyFrame = false

    @Flag(help: "Exit when the source ends instead of keeping the page up until Ctrl-C.")
    var exitAtEnd = false

    @Option(name: .long, help: ArgumentHelp("JPEG quality of the frames sent to the page (10...100).", valueName: "q"))
    var quality = JPEG.defaultQuality

    @Flag(inversion: .prefixedNo, help: "Smooth keypoints over time per person (One-Euro filter, as posekit pose).")
    var smooth = true

    @Flag(help: "Show progress (frames, frames/s, dropped) on stderr even when it is not a terminal.")
    var progress = false

    @OptionGroup(title: "Identities") var tracking: TrackingOptions

    func validate() throws {
        _ = try listenAddress()
        guard (10...100).contains(quality) else { throw ValidationError("--quality must be in 10...100, not \(quality)") }
        try Limits.probability.check(confidence, "--confidence")
        guard pinchDistance.isFinite, (0.05...2).contains(pinchDistance) else {
            throw ValidationError("--pinch-distance must be in 0.05...2 hand sizes, not \(pinchDistance)")
        }
        if pinchDistance != HandGestureProcessor.Configuration().pinchMaxDistance, !gestures { throw ValidationError("--pinch-distance needs --gestures") }
        if classifier != nil && weights != ActionRecognizer.defaultWeights { throw ValidationError("give --classifier (a Create ML model) or --weights (ActionNet), not both") }
        if !actions && (classifier != nil || weights != ActionRecognizer.defaultWeights) {
            throw ValidationError("--no-actions runs no classifier; drop --classifier / --weights")
        }
        if model.isBlazePose {
            let given = model.poseNetOnlyOptions(decode, try AccuracyOptions.parse([]))
            if !given.isEmpty { throw ValidationError("\(given.joined(separator: ", ")): PoseNet option(s); --model \(ModelOptions.blazePose) has no use for them") }
        }
    }

    private func listenAddress() throws -> ListenAddress {
        do { return try ListenAddress(parsing: listen) } catch { throw ValidationError("--listen \(error.description)") }
    }

    func run() async throws {
        let address = try listenAddress()
        try MediaDirectory.requireFound(source)
        // Everything that can fail on bad settings or files fails here, before the server starts.
        let classifierPath = classifier.map { CreateMLActionClassifier.modelPath($0) ?? $0 }
        let weightsPath = actions && classifier == nil ? try ModelLocator.resolve(weights).path : nil
        try SameFileCheck.refuse(inputs: [source] + [classifierPath, weightsPath].compactMap { $0 },
                                 outputs: json.map { [("--json", $0)] } ?? [])
        let recognizer: ActionRecognizer? = try actions ? makeRecognizer(weightsPath: weightsPath) : nil
        let finder: any PoseFrameModel = model.isBlazePose ? try model.makeBlazePose(decode) : try model.makeDetector(decode, defaults: .default)
        let handsFound = findsHands || gestures
        let handDetector = handsFound ? try handOptions.makeDetector(threads: model.threads, precision: model.precision, loadsBodyModel: false) : nil
        let engine = try recognizer?.makeEngine()

        SignalHandling.install()
        let feed = LiveFeed(hello: ViewScene.hello(source: source, hands: handsFound, gestures: gestures, actions: actions), quality: quality)
        let server = ViewServer(feed: feed, address: address)
        let bound: ListenAddress
        do { bound = try await server.start() } catch let error as ViewServerError { throw CLIError(error.description) }
        printToStandardError("posekit: view: \(bound.url) (Ctrl-C to stop)\(bound.isLoopback ? "" : "; listening on \(bound): anyone who can reach this machine can watch")")

        let output = try OutputFile(path: json ?? "-", realtime: true)
        let reporter = ProgressReporter(forced: progress)
        var loop = ViewLoop(source: source, coordinates: coordinates, feed: feed, engine: engine,
                            gestures: gestures ? PinchGestures(configuration: HandGestureProcessor.Configuration(pinchMaxDistance: pinchDistance)) : nil,
                            json: output.sink, reporter: reporter)
        var stop: Error?
        do {
            try await OutputFile.committing([output]) {
                defer { reporter.finish() }
                do {
                    try await loop.run(frames: AnySendableFrames(source: source, everyFrame: everyFrame), finder: finder, handDetector: handDetector,
                                       smoothing: smooth, tracking: tracking.configuration, dropsLateFrames: !everyFrame)
                } catch let error where endsTheRun(error) {
                    stop = error          // a stop signal or a closed output: the summary still goes out
                    try? loop.finish(failure: nil)
                    return
                } catch {
                    try? loop.finish(failure: CLIError.describe(error, input: source))
                    throw error
                }
                try loop.finish(failure: nil)
            }
        } catch {
            await server.stop()
            throw error
        }
        if loop.dropped > 0 {
            printToStandardError("posekit: dropped \(loop.dropped) late frame(s) of \(loop.framesProcessed + loop.dropped) (live source)")
        }
        if let stop {
            await server.stop()
            throw stop
        }
        if !exitAtEnd {
            printToStandardError("posekit: view: \(source) has ended; the page keeps the last frame and the summary (Ctrl-C to quit)")
            while !InputCancellation.isCancelled { try? await Task.sleep(nanoseconds: 50_000_000) }
        }
        await server.stop()
    }

    private func makeRecognizer(weightsPath: String?) throws -> ActionRecognizer {
        if let classifier {
            let model = try CreateMLActionClassifier.loading(classifier)
            return try ActionRecognizer(createML: model, confidenceThreshold: confidence, counters: RepetitionCounterMapping.matchingNames(model.labels),
                                        tracking: tracking.configuration)
        }
        return try CLIError.reading(weightsPath!) {
            try ActionRecognizer(weightsURL: URL(fileURLWithPath: weightsPath!), confidenceThreshold: confidence, tracking: tracking.configuration)
        }
    }
}
