import Foundation
import ModelGraph
import Tensor
import Testing
import TFLite

/// The six imported MediaPipe graphs with their 1×1 convolutions in each reduced precision this CPU
/// runs, against the float64 goldens (`reference/mediapipe/models`), within the precision's stated
/// tolerance; fp32's is ModelParityTests' 1e-4 of the range. One import per model, both precisions
/// on it. A precision the CPU lacks must be refused (`PrecisionUnavailable`), not run in fp32.
///
/// Tolerances (largest error over the output's range, as `errorOverRange`; a one-value probability
/// on 0…1, see `error(_:_:)`), measured on the AVX-512 host of docs/speed.md in the tuned and the
/// portable build (every output printed by the test):
/// - bf16 rounds each reduced layer's weights and activations to 8 significant bits (relative
///   error 2⁻⁹ per operand, float32 sums): worst 0.0053 (pose_landmark_full's heatmap logits) on
///   any output; the flags and handedness 0.0012 at most; bound 0.025.
/// - int8 quantizes weights per output channel (127 steps) and activations per pixel (255 steps, or
///   127 each side when a pixel has negative values, as these graphs' pre-activation inputs do):
///   worst 0.030 on any output (pose_landmark_full's heatmap logits, palm_detection_full's score logits);
///   the flags and handedness 0.0036 at most; bound 0.2.
/// - pose_landmark_full's segmentation logits are judged as the mask (after the sigmoid): a few
///   logits near their extremes move by 0.47 (int8) / 0.086 (bf16) of the range, where the
///   probability is saturated. Pixels on the other side of 0.5: int8 0.058 %, bf16 0.009 %; mean
///   probability error 0.0008 / 0.00013; bounds 0.2 % and 0.002 (int8), 0.02 % and 0.0003 (bf16).
/// The graphs' 1×1 convolutions under a fused residual add or PReLU, or with under 64 inputs, stay
/// float32 (GraphPlan: 4 of 34 steps reduced in palm_detection_full, 20 of 44 in pose_detection), so
/// the test also checks that some steps did run reduced (`conv 1x1 int8` in the step kinds).
@Suite struct GraphPrecisionParityTests {
    static func tolerance(_ precision: Precision) -> Double {
        switch precision {
        case .bf16: return 0.025
        case .int8: return 0.2
        default: return 1e-4
        }
    }

    /// pose_landmark_full's segmentation logits (output 2).
    static let segmentationOutput = 2

    static func maskTolerance(_ precision: Precision) -> (disagreeing: Double, meanError: Double) {
        precision == .int8 ? (0.002, 0.002) : (0.0002, 0.0003)
    }

    /// The fraction of pixels whose mask probability falls on the other side of 0.5, and the mean
    /// difference of the probabilities (sigmoid of the logits).
    static func maskAgreement(_ output: Tensor, _ reference: Tensor) -> (disagreeing: Double, meanError: Double) {
        let got = output.scalars, want = reference.scalars
        guard got.count == want.count, !got.isEmpty else { return (1, 1) }
        func sigmoid(_ x: Float) -> Double { 1 / (1 + exp(-Double(x))) }
        var disagreeing = 0, total = 0.0
        for (g, w) in zip(got, want) {
            if (g > 0) != (w > 0) { disagreeing += 1 }
            let d = abs(sigmoid(g) - sigmoid(w))
            total += d.isNaN ? 1 : d
        }
        return (Double(disagreeing) / Double(got.count), total / Double(got.count))
    }

    /// `errorOverRange`, but a one-value output in 0…1 (the hand flag, the handedness, the pose
    /// flag: a sigmoid in the model) is a probability, judged on a probability's range (0…1), not on
    /// its own magnitude (`errorOverRange`'s fallback for a constant), which would make a handedness
    /// of 0.045 a test of relative precision: its bf16 error is 0.011 of itself in the tuned build
    /// and 0.027 in the portable one (the float32 layers around the reduced ones round differently,
    /// and bf16 magnifies it), 0.0005 and 0.0012 as a probability.
    static func error(_ output: Tensor, _ reference: Tensor) -> Double {
        let want = reference.scalars
        guard want.count == 1, let p = want.first, (0...1).contains(p) else { return errorOverRange(output, reference) }
        guard output.scalars.count == 1, let got = output.scalars.first else { return .infinity }
        let d = abs(Double(got) - Double(p))
        return d.isNaN ? .infinity : d
    }

    @Test(arguments: MediaPipeCase.models)
    func reducedPrecisionMatchesFloat64WithinItsTolerance(_ model: String) throws {
        let golden = try MediaPipeCase(model)
        let graph = try golden.graph()
        for precision in [Precision.int8, .bf16] {
            guard precision.unavailability == nil else {
                #expect(throws: PrecisionUnavailable.self) { try GraphRunner(graph: graph, threads: 2, precision: precision) }
                continue
            }
            let runner = try GraphRunner(graph: graph, threads: 2, precision: precision)
            let reducedSteps = runner.stepKinds.filter { $0.hasPrefix("conv 1x1 \(precision.rawValue)") }.count
            #expect(reducedSteps > 0, "\(model) \(precision): no step ran reduced: \(Set(runner.stepKinds))")
            let outputs = try runner.run([golden.input])
            var errors: [Double] = []
            for (i, output) in outputs.enumerated() {
                let error = Self.error(output, golden.float64[i])
                errors.append(error)
                if model == "pose_landmark_full" && i == Self.segmentationOutput {
                    // Logits of a 256x256 mask: judged as the mask a user gets (after the sigmoid).
                    let mask = Self.maskAgreement(output, golden.float64[i])
                    print("graph precision parity \(model) \(precision) mask: \(mask.disagreeing) of pixels on the other side of 0.5, mean probability error \(mask.meanError)")
                    #expect(mask.disagreeing <= Self.maskTolerance(precision).disagreeing && mask.meanError <= Self.maskTolerance(precision).meanError,
                            "\(model) \(precision) mask: \(mask)")
                    continue
                }
                #expect(error <= Self.tolerance(precision),
                        "\(model) \(precision) output \(i): \(error) of the range from the float64 reference")
            }
            print("graph precision parity \(model) \(precision): \(reducedSteps) of \(runner.stepKinds.filter { $0.hasPrefix("conv 1x1") }.count) 1x1 steps reduced, error over range per output \(errors)")
        }
    }
}
