import ArgumentParser
import PoseKit

/// The inputs and outputs of a command that writes one JSON line per frame (`pose`, `hands`):
/// the inputs, `--json`, `--overlay`, `--coordinates`, `--realtime`, `--progress`. One
/// declaration, one set of checks, one run loop (``FrameRun``).
struct FrameOutputOptions: ParsableArguments {
    @Option(name: .long, help: ArgumentHelp(
        "Also write annotated frames to this path: .mp4, .mkv, .webm, .mov, .m4v, .png or .jpg are encoded by ffmpeg; .y4m, .ppm, a FIFO or - (stdout; then JSON goes to --json) get raw Y4M for video, PPM for images. Other names are refused.",
        valueName: "path|-"), completion: .file())
    var overlay: String?

    @Flag(help: "With --overlay: label each person (hand) with their id (#1, #2, ... as in the JSON's \"id\").")
    var overlayIds = false

    @Option(name: .long, help: ArgumentHelp("Write the JSON Lines here instead of stdout.", valueName: "path"), completion: .file(extensions: ["jsonl"]))
    var json: String?

    @Flag(help: "Drop frames that arrive while the previous one is still being processed (live sources); the count of dropped frames is reported.")
    var realtime = false

    @Option(name: .long, help: ArgumentHelp(
        "Keypoints and boxes in JSON Lines: pixels (top-left origin), normalized (0...1 of the frame, top-left origin, as MediaPipe) or vision (0...1, lower-left origin, as Apple's Vision).",
        valueName: "pixels|normalized|vision"))
    var coordinates: KeypointCoordinates = .pixels

    @Flag(help: "Show progress (frames, frames/s, dropped) on stderr even when it is not a terminal.")
    var progress = false

    @Argument(help: ArgumentHelp("Images (.ppm/.pgm/.pnm; JPEG, PNG, ... through ffmpeg), Y4M videos (MP4, MKV, ... or a /dev/video device through ffmpeg), directories of them, or - for standard input.", valueName: "input"), completion: .file())
    var inputs: [String] = []

    /// The checks every frame command makes (`batch`: its batch options).
    func check(batch: BatchOptions) throws {
        if inputs.isEmpty && batch.inputsFrom == nil { throw ValidationError("give at least one input (a file, - for stdin, or --inputs-from FILE)") }
        if inputs.filter({ $0 == "-" }).count > 1 { throw ValidationError("standard input (-) can be read only once") }
        if overlayIds && overlay == nil { throw ValidationError("--overlay-ids labels the ids of --overlay; give --overlay PATH") }
        if overlay == "-" && json == nil { throw ValidationError("--overlay - writes frames to stdout, so give --json PATH for the JSON Lines") }
        if overlay == "-" && json == "-" { throw ValidationError("--overlay - and --json - cannot both use stdout") }
        if batch.outputDir != nil && (json != nil || overlay != nil) {
            throw ValidationError("--output-dir writes one JSON Lines file per input; it does not combine with --json or --overlay")
        }
    }
}

/// The run of a frame command: the inputs selected (batch options), outputs checked before any
/// work, then each input processed in turn into one JSON Lines output (and the overlay), or with
/// `--output-dir` one file per input; a failed input is reported and the others go on (exit 1).
struct FrameRun {
    /// The inputs given as arguments.
    let inputs: [String]
    /// `--json` and `--overlay` (nil: stdout, none).
    let json: String?, overlay: String?
    /// `--realtime`, `--progress`.
    let realtime: Bool, progress: Bool
    let batch: BatchOptions
    /// Which inputs make one stream (`--video`: consecutive images as one video).
    let video: VideoInputOptions
    /// Other files the run reads (refused as outputs).
    var otherInputs: [String] = []
    /// Other files the run writes besides `--json` and `--overlay`, with their option (`pose --mask`),
    /// refused as inputs.
    var otherOutputs: [(option: String, path: String)] = []

    init(inputs: [String], json: String?, overlay: String?, realtime: Bool = false, progress: Bool, batch: BatchOptions,
         video: VideoInputOptions, otherInputs: [String] = [], otherOutputs: [(option: String, path: String)] = []) {
        (self.inputs, self.json, self.overlay, self.realtime, self.progress) = (inputs, json, overlay, realtime, progress)
        (self.batch, self.video, self.otherInputs, self.otherOutputs) = (batch, video, otherInputs, otherOutputs)
    }

    /// The run of `pose` and `hands`: their inputs and outputs are `options`.
    init(options: FrameOutputOptions, batch: BatchOptions, video: VideoInputOptions, otherInputs: [String] = [],
         otherOutputs: [(option: String, path: String)] = []) {
        self.init(inputs: options.inputs, json: options.json, overlay: options.overlay, realtime: options.realtime,
                  progress: options.progress, batch: batch, video: video, otherInputs: otherInputs, otherOutputs: otherOutputs)
    }

    /// Runs `process(stream, json, overlay, reporter)` on every stream of inputs (each input on its
    /// own, or with `--video` consecutive images together; one input each with `--output-dir`). `prepare` gets the selected
    /// inputs once the outputs are checked, may narrow them and loads what the run needs (the
    /// model); `openOutputs` opens the run's other outputs (committed with the JSON Lines, as they
    /// are); `finish` writes what comes after the last input.
    func run(prepare: ([String]) throws -> [String] = { $0 },
             openOutputs: () throws -> [OutputFile] = { [] },
             process: ([String], ByteSink, MediaWriter?, ProgressReporter) async throws -> Void,
             finish: (ByteSink) throws -> Void = { _ in }) async throws {
        let selected = try batch.selectedInputs(arguments: inputs)
        try refuseSameFiles(inputs: selected + otherInputs + [batch.inputsFrom].compactMap { $0 },
                                 outputs: batch.outputs(for: selected, json: json, overlay: overlay) + otherOutputs)
        if let overlay { try MediaWriter.check(path: overlay) }   // before any work
        SignalHandling.install()
        let inputs = try prepare(selected)
        let progressReporter = ProgressReporter(forced: progress)
        defer { progressReporter.finish() }
        if let directory = batch.outputDir {
            let failures = try await BatchRun(directory: directory, realtime: realtime).run(inputs) { input, sink in
                try await process([input], sink, nil, progressReporter)
            }
            if failures > 0 { throw ExitCode(1) }
            return
        }
        let jsonFile = try OutputFile(path: json ?? "-", realtime: realtime)
        let overlayWriter = try overlay.map { try MediaWriter(path: $0, realtime: realtime) }
        let others = try openOutputs()
        var failures = 0
        try await OutputFile.committing([jsonFile] + (overlayWriter.map { [$0.output] } ?? []) + others) {
            for stream in ImagesAsVideo.streams(of: inputs, asVideo: video.video) {
                do {
                    try await process(stream, jsonFile.sink, overlayWriter, progressReporter)
                } catch let usage as ValidationError {
                    throw usage
                } catch where !endsTheRun(error) {
                    printToStandardError("posekit: error: \(CLIError.describe(error, input: stream[0]))")
                    failures += 1
                }
            }
            try finish(jsonFile.sink)
            if realtime && progressReporter.dropped > 0 {
                printToStandardError("posekit: dropped \(progressReporter.dropped) late frame(s) of \(progressReporter.frames + progressReporter.dropped) (--realtime)")
            }
            // A failed run, as far as the outputs are concerned: each output that got something
            // keeps it, one that got nothing (the only input was missing) leaves its old file.
            if failures > 0 { throw ExitCode(1) }
        }
    }
}
