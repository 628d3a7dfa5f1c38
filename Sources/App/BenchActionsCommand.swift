import ArgumentParser
import KernelBenchmarks
import PoseKit

/// `posekit bench actions`: time to classify one window, ActionNet against Create ML classifiers.
struct BenchActions: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "actions",
        abstract: "Time one action-classifier window on one core: ActionNet and Create ML classifiers (.mlmodel), side by side.",
        discussion: """
            Each round classifies one window with every classifier in turn (interleaved, so all \
            see the same phases of a shared machine), on one core: ActionNet's temporal \
            convolutions (60 frames × 51 features) and each Create ML model's layer graph \
            ([T, 3, 18]). Prints the median and fastest milliseconds per window and GFLOP per \
            window (2 per multiply-add of the convolutions). The windows are fixed pseudo-random \
            values: the time does not depend on them.

            EXAMPLES
              posekit bench actions
              posekit bench actions --classifiers \\
                ../shared/weights/createml-exercise-classifier/ExerciseClassifier.mlmodel
            """)

    @Option(help: "ActionNet weights (name or path).")
    var weights = ActionRecognizer.defaultWeights

    @Option(parsing: .upToNextOption, help: "Create ML classifiers (.mlmodel; default: the two in $POSEKIT_SHARED or ../shared/weights).")
    var classifiers: [String] = []

    @Option(help: "Timed rounds (the median is reported; \(Limits.benchRuns.text)).")
    var runs = 50

    func validate() throws { try Limits.benchRuns.check(runs, "--runs") }

    func run() throws {
        try CLIError.reading(weights) {
            try ActionClassifierBenchmark(weights: weights, classifiers: classifiers, runs: runs).run(log: { StandardOutput.printLine($0) })
        }
    }
}
