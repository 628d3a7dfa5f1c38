import ArgumentParser
import Foundation
import PoseKit

/// `posekit actions`: exercise labels per sliding window, repetitions and a summary as JSON Lines.
struct ActionsCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "actions",
        abstract: "Recognize exercises and count repetitions in a video (or in pose JSON Lines).",
        discussion: """
          posekit actions workout.mp4                    # labels, reps, summary
          posekit pose clip.mp4 | posekit actions --poses -   # the same summary
          posekit actions --overlay out.mp4 workout.mp4  # label, count drawn
          posekit actions --output-dir actions/ clips/*.mp4   # a file per clip
          posekit actions --classifier M.mlmodel workout.mp4  # Create ML

        Finds poses exactly as posekit pose does by default, follows the most prominent person, \
        classifies their last 2 s every few frames and counts repetitions at their turning \
        points. JSON Lines: a "prediction" per window (jumping_jacks, lunges, burpees, squats, \
        other; no_person, low_confidence), a "rep" per repetition with its posture cue, a \
        "rejected_rep" per turning point whose posture was not the exercise's, and a "summary" \
        last:

          {"type": "rep", "label": "squats", "count": 1, "frame": 81,
           "time": 2.7, "depth": 0.71, "knee_angle": 49, "hips_below_knees": true}
          {"type": "summary", "frames": 322, "label": "squats",
           "seconds": {...}, "reps": {...}, "rejected_reps": {...}}

        More examples:
          posekit actions --classifier M.mlmodel --counter "Lunges=none" a.mp4
          posekit actions --classifier M.mlmodel --window window.npy
          posekit info M.mlmodel                       # its labels and window

        Every field, the counters and their rules: docs/cli.md, docs/actions.md.
        """)

    @OptionGroup var model: ModelOptions
    @OptionGroup var decode: DecodeOptions

    @Argument(help: ArgumentHelp("Y4M videos or PNM image sequences, any video ffmpeg reads (MP4, MKV, WebM, AVI, a /dev/video device), a directory of them, or - for standard input (several need --output-dir).", valueName: "input"), completion: .file())
    var inputs: [String] = []

    @Option(name: .long, help: ArgumentHelp("Read `posekit pose` JSON Lines instead of frames. Frames out of time order are sorted when this is a file and refused on a stream; duplicated frames or times are refused.", valueName: "path|-"), completion: .file(extensions: ["jsonl", "json"]))
    var poses: String?

    @Option(name: .long, help: ArgumentHelp("Action classifier weights (name or path).", valueName: "name|path"), completion: ModelOptions.completion(for: ModelCatalogue.names(of: [.actionNet])))
    var weights: String = ActionRecognizer.defaultWeights

    @Option(name: .long, help: ArgumentHelp("A Create ML action classifier (a .mlmodel path, or NAME for NAME.mlmodel where weight bundles are kept) to run instead of ActionNet: its labels as spelled, its window length, its frame rate (metadata, else \(Int(PoseStream.fallbackFrameRate))/s), a window every 10 frames (--stride); repetitions counted, under the model's labels, for its classes mapped to a counter (--counter).", valueName: "path|name"), completion: .file(extensions: ["mlmodel"]))
    var classifier: String?

    @Option(name: .long, parsing: .singleValue, help: ArgumentHelp("With --classifier: count this class's repetitions with this counter (\(RepetitionCounterMapping.counterNames)), or none; repeatable. Default: the labels that name a counter's exercise (\"Jumping Jacks\" -> jumping_jacks; docs/cli.md \"Create ML\").", valueName: "label=counter"))
    var counter: [String] = []

    @Option(name: .long, help: ArgumentHelp("Classify this one window with --classifier (.npy float32 [T, 3, 18] or JSON [T][3][18]) and print its prediction.", valueName: "file"), completion: .file(extensions: ["npy", "json"]))
    var window: String?

    @Option(name: .long, help: ArgumentHelp("Windows whose top probability is lower are labeled low_confidence (\(Limits.probability.text)).", valueName: "x"))
    var confidence: Double = 0.5

    @Option(name: .long, help: ArgumentHelp("Model frames (at the model's frame rate) between windows (default: from the weights; \(Limits.actionStride.text)).", valueName: "n"))
    var stride: Int?


    @Option(name: .long, help: ArgumentHelp("Also write annotated frames (pose, label, confidence, reps) to this path: .mp4, .mkv, .webm, .mov or .m4v encoded by ffmpeg; .y4m, a FIFO or - (stdout; then JSON goes to --json) raw Y4M. Other names are refused.", valueName: "path|-"), completion: .file())
    var overlay: String?

    @Option(name: .long, help: ArgumentHelp("Write the JSON Lines here instead of stdout.", valueName: "path"), completion: .file(extensions: ["jsonl"]))
    var json: String?

    @Flag(inversion: .prefixedNo, help: ArgumentHelp(
        "Smooth keypoints over time per person before classifying (One-Euro filter, as posekit pose does by default; --no-smooth for raw per-frame poses)."))
    var smooth = true

    @Flag(help: "Show progress on stderr even when it is not a terminal.")
    var progress = false

    @OptionGroup(title: "Images as video") var videoInput: VideoInputOptions

    @OptionGroup(title: "Identities") var tracking: TrackingOptions

    @OptionGroup(title: "Batches") var batch: BatchOptions

    func validate() throws {
        let hasFrames = !inputs.isEmpty || batch.inputsFrom != nil
        if window != nil {
            guard classifier != nil else { throw ValidationError("--window needs --classifier MODEL.mlmodel") }
            guard !hasFrames, poses == nil, overlay == nil, batch.outputDir == nil else {
                throw ValidationError("--window classifies one window file; it takes no video, --poses, --overlay or --output-dir")
            }
            return
        }
        try ModelOptions.checkName(weights, "--weights", among: ModelCatalogue.names(of: [.actionNet]))
        if classifier != nil && weights != ActionRecognizer.defaultWeights { throw ValidationError("give --classifier (a Create ML model) or --weights (ActionNet), not both") }
        if !counter.isEmpty && classifier == nil { throw ValidationError("--counter maps a Create ML classifier's classes; it needs --classifier (ActionNet's classes are its counters)") }
        _ = try counterOverrides()
        if hasFrames == (poses != nil) { throw ValidationError("give an input video (or -), or --poses FILE, but not both") }
        try Limits.probability.check(confidence, "--confidence")
        if let stride { try Limits.actionStride.check(stride, "--stride") }
        if overlay != nil && poses != nil { throw ValidationError("--overlay needs frames: give a video input, not --poses") }
        if overlay == "-" && json == nil { throw ValidationError("--overlay - writes frames to stdout, so give --json PATH for the JSON Lines") }
        if overlay == "-" && json == "-" { throw ValidationError("--overlay - and --json - cannot both use stdout") }
        if batch.outputDir != nil && (json != nil || overlay != nil || poses != nil) {
            throw ValidationError("--output-dir writes one JSON Lines file per input video; it does not combine with --json, --overlay or --poses")
        }
        if batch.outputDir == nil && (inputs.count > 1 || batch.inputsFrom != nil) {
            throw ValidationError("several inputs need --output-dir DIR (one summary per input)")
        }
    }

    func run() async throws {
        if let window, let classifier {
            try classifyWindow(window, classifier)
            return
        }
        let (recognizer, classifierPath) = try makeRecognizer()
        SignalHandling.install()
        if let poses {
            try refuseSameFiles(inputs: [poses, classifierPath], outputs: batch.outputs(for: [], json: json, overlay: nil))
            let output = try OutputFile(path: json ?? "-")
            try OutputFile.committing([output]) { try makeEngine(recognizer, classifierPath).recognize(posesFrom: poses, defaultFPS: videoInput.fps, needsSize: classifier != nil, into: output.sink) }
            return
        }
        var detector: (any PoseFrameModel)?
        // One input per run (its summary) unless each gets its own file; each input its own engine.
        try await FrameRun(inputs: inputs, json: json, overlay: overlay, progress: progress, batch: batch,
                           video: videoInput, otherInputs: [classifierPath]).run(prepare: { inputs in
            if batch.outputDir == nil && inputs.count > 1 {
                throw ValidationError("\(inputs.count) inputs (a directory's files count one by one): several inputs need --output-dir DIR (one summary per input)")
            }
            // The one default of pose, actions and the library: `actions X` and `pose X | actions --poses -` agree.
            // BlazePose's COCO-17 subset feeds the windows (`ActionEngine` maps the set).
            detector = model.isBlazePose ? try model.makeBlazePose(decode) : try model.makeDetector(decode, defaults: .default)
            return inputs
        }, process: { stream, json, overlay, reporter in
            let engine = try makeEngine(recognizer, classifierPath)
            let opened = try StreamInput([stream[0]], asVideo: videoInput.video, frameRate: videoInput.frameRate, overlay: overlay, reporter)
            try await engine.recognize(framesFrom: opened, detector!, fps: videoInput.fps, smoothing: smooth, tracking: tracking.configuration,
                                       into: json, overlay: overlay, reporter)
        })
    }

    /// The library's recognizer these options ask for (ActionNet's `--weights`, or the Create ML
    /// `--classifier` with its counters), built once so bad weights are one error before any
    /// output, and the file it reads (which no output may overwrite).
    private func makeRecognizer() throws -> (ActionRecognizer, String) {
        if let classifier {
            // A Create ML classifier is immutable and shared by every engine.
            let createML = try CreateMLActionClassifier.loading(classifier)
            let counters: RepetitionCounterMapping
            do {
                counters = try RepetitionCounterMapping.matchingNames(createML.labels).applying(counterOverrides(), labels: createML.labels)
            } catch ActionNetError.invalidConfiguration(let problem) {
                throw ValidationError("--counter: \(createML.fileName): \(problem)")
            }
            let recognizer = try ActionRecognizer(createML: createML, confidenceThreshold: confidence, windowStride: stride,
                                                  counters: counters, tracking: tracking.configuration)
            return (recognizer, CreateMLActionClassifier.modelPath(classifier) ?? classifier)
        }
        let url = try ModelLocator.resolve(weights)
        let recognizer = try CLIError.reading(url.path) {
            try ActionRecognizer(weightsURL: url, confidenceThreshold: confidence, windowStride: stride, tracking: tracking.configuration)
        }
        return (recognizer, url.path)
    }

    /// A fresh engine of `recognizer` for one stream (ActionNet's weights loaded anew; errors name `path`).
    private func makeEngine(_ recognizer: ActionRecognizer, _ path: String) throws -> ActionEngine {
        try CLIError.reading(path) { try recognizer.makeEngine() }
    }

    /// `--counter LABEL=COUNTER` options: label → counter (nil: `none`, no counter).
    private func counterOverrides() throws -> [String: ActionClass?] {
        var overrides: [String: ActionClass?] = [:]
        for item in counter {
            guard let equals = item.lastIndex(of: "="), equals != item.startIndex else {
                throw ValidationError("--counter \(item): give LABEL=COUNTER, e.g. \"Jumping Jacks=jumping_jacks\" or \"Other Action=none\"")
            }
            let label = String(item[..<equals]), name = String(item[item.index(after: equals)...])
            if name == "none" {
                overrides[label] = .some(nil)
            } else if let action = ActionClass(name: name), ActionClass.exercises.contains(action) {
                overrides[label] = action
            } else {
                throw ValidationError("--counter \(item): no counter '\(name)' (counters: \(RepetitionCounterMapping.counterNames), or none)")
            }
        }
        return overrides
    }

    /// `--classifier MODEL --window FILE`: one prediction line, or one error line and nothing written.
    private func classifyWindow(_ windowPath: String, _ modelPath: String) throws {
        let prediction = try CreateMLActionClassifier.loading(modelPath).classify(windowAt: windowPath)
        let output = try OutputFile(path: json ?? "-")
        var line = JSONText(capacity: 256)
        prediction.append(to: &line)
        line.newline()
        try OutputFile.committing([output]) { try output.sink.write(line.bytes) }
    }
}
