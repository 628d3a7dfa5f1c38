import ArgumentParser

/// `posekit bench`: measured speed of kernels, the model and the whole pipeline.
struct Bench: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "bench",
        abstract: "Benchmark kernels, models and the end-to-end pipeline (build with -c release).",
        discussion: """
        Every figure is a median over repeated runs after warm-up, measured side by side in one run \
        (ours against OpenBLAS sgemm or the naive loop), because shared machines are noisy. The \
        active OpenBLAS core is printed; OPENBLAS_CORETYPE in the environment forces a weaker one.

        EXAMPLES
          posekit bench kernels
          posekit bench model --json > model.json
          posekit bench actions                 # one action window, every classifier
          posekit bench blazepose clip.mp4 --threads 1 --compare-mediapipe
          posekit bench hands clip.mp4 --threads 1   # the hand pipeline per frame
          env -u OPENBLAS_CORETYPE posekit bench kernels
        """,
        subcommands: [BenchKernels.self, BenchModel.self, BenchPipeline.self, BenchActions.self, BenchDecode.self, BenchHands.self,
                      BenchBlazePose.self, BenchView.self]
    )
}
