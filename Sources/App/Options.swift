import ArgumentParser

/// Which network to run and how to feed it; shared by every command that runs PoseNet.
struct ModelOptions: ParsableArguments {
    @Option(name: .long, help: ArgumentHelp(
        "Model name (mobilenet075, mobilenet050) or path to a .pkw weight bundle.",
        valueName: "name|path"))
    var model: String = "mobilenet075"

    @Option(name: .long, help: ArgumentHelp(
        "Side of the square network input, in pixels (default: 513 for pose and eval, the most accurate and 70+ frames/s on 2 cores; 353 for actions, which was trained on it). Sizes 16k+1 (257, 353, 513) align the output grid with the image.",
        valueName: "n"))
    var inputSize: Int?

    @Option(name: .long, help: ArgumentHelp("Output stride of the heads: 8, 16 or 32 (smaller is finer and slower).", valueName: "8|16|32"))
    var outputStride: Int = 16

    @Option(name: .long, help: ArgumentHelp(
        "How frames are fitted to the square input: letterbox (keep aspect ratio, pad bottom/right) or stretch (scale each axis; Apple's scaleFill).",
        valueName: "letterbox|stretch"))
    var resize: ResizeMode = .letterbox

    @Option(name: .long, help: ArgumentHelp("Worker threads for the network (default: all cores).", valueName: "n"))
    var threads: Int?

    func validate() throws {
        if let inputSize, inputSize < 33 || inputSize > 2049 {
            throw ValidationError("--input-size must be between 33 and 2049, got \(inputSize)")
        }
        guard [8, 16, 32].contains(outputStride) else {
            throw ValidationError("--output-stride must be 8, 16 or 32, got \(outputStride)")
        }
        if let threads, threads < 1 || threads > 256 {
            throw ValidationError("--threads must be between 1 and 256, got \(threads)")
        }
    }
}

/// How frames are fitted to the network's square input.
enum ResizeMode: String, ExpressibleByArgument, CaseIterable {
    case letterbox, stretch
}

/// How head tensors become poses; shared by `pose`, `actions` and `eval`.
struct DecodeOptions: ParsableArguments {
    @Flag(help: "Decode one person per frame (argmax + offset), or several (PersonLab-style; default).")
    var mode: DecodeMode = .multi

    @Option(name: .long, help: ArgumentHelp("Most poses to report per frame (multi-person).", valueName: "n"))
    var maxPoses: Int = 10

    @Option(name: .long, help: ArgumentHelp("Part score a heatmap peak needs to seed a pose (0...1; Apple: jointConfidenceThreshold).", valueName: "x"))
    var scoreThreshold: Double = 0.5

    @Option(name: .long, help: ArgumentHelp("Two poses whose same part lies within this many pixels of network input are the same person (Apple: matchingJointDistance).", valueName: "px"))
    var nmsRadius: Double = 20

    @Option(name: .long, help: ArgumentHelp("Drop poses scoring below this (0...1; Apple: poseConfidenceThreshold).", valueName: "x"))
    var minPoseScore: Double = 0.05

    @Option(name: .long, help: ArgumentHelp("Displacement refinement steps per skeleton edge (Apple: adjacentJointOffsetRefinementSteps).", valueName: "n"))
    var refineSteps: Int = 2

    @Flag(help: "Also run the mirror image and average the two (more accurate, twice the network time).")
    var flip = false

    func validate() throws {
        guard maxPoses >= 1 && maxPoses <= 1000 else { throw ValidationError("--max-poses must be between 1 and 1000, got \(maxPoses)") }
        guard (0...1).contains(scoreThreshold) else { throw ValidationError("--score-threshold must be within 0...1, got \(scoreThreshold)") }
        guard nmsRadius >= 0 && nmsRadius.isFinite else { throw ValidationError("--nms-radius must be a non-negative number, got \(nmsRadius)") }
        guard (0...1).contains(minPoseScore) else { throw ValidationError("--min-pose-score must be within 0...1, got \(minPoseScore)") }
        guard refineSteps >= 0 && refineSteps <= 100 else { throw ValidationError("--refine-steps must be between 0 and 100, got \(refineSteps)") }
    }
}

enum DecodeMode: String, EnumerableFlag {
    case single, multi
}
