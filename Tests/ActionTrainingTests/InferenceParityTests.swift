import Testing
import Tensor
@_spi(Training) @testable import ActionNet
@testable import ActionTraining

/// The runtime forward pass (Tensor's convolutions on padded NHWC `[1, T, C]`, softmax) against
/// the training forward pass (im2col + sgemm over a batch, itself checked against naive loops in
/// ``GradientTests``): same logits and probabilities for every window of a batch.
struct InferenceParityTests {
    @Test(arguments: [(60, 9, 32, 64), (13, 3, 5, 7), (4, 1, 3, 2)])
    func tensorInferenceMatchesTheTrainingForwardPass(window: Int, kernel: Int, channels1: Int, channels2: Int) throws {
        var a = TemporalConvNet.Architecture()
        a.windowLength = window; a.kernel = kernel; a.channels1 = channels1; a.channels2 = channels2
        let net = try TemporalConvNet(architecture: a)
        net.initialize(seed: 3)
        var rng = SeededRandom(seed: 4)
        net.parameterValues = net.parameterValues.map { $0 + Float(0.05 * rng.gaussian()) }  // non-zero biases
        let batch = 4, size = window * a.inputChannels
        let pass = TrainingPass(net, batch: batch)
        let windows = (0..<(batch * size)).map { _ in Float(rng.gaussian()) }
        windows.withUnsafeBufferPointer { pass.windows.floats.update(from: $0.baseAddress!, count: windows.count) }
        pass.forward()
        var largest: Float = 0
        for n in 0..<batch {
            let (logits, probabilities) = try net.logitsAndProbabilities(features: Array(windows[(n * size)..<((n + 1) * size)]))
            let expected = Array(UnsafeBufferPointer(start: pass.logits.floats + n * a.classes, count: a.classes))
            for j in 0..<a.classes {
                #expect(abs(logits[j] - expected[j]) <= 1e-4 * max(1, abs(expected[j])), "window \(n) class \(j)")
                largest = max(largest, abs(logits[j]))
            }
            let reference = TrainingPass.softmax(expected, a.classes)
            for j in 0..<a.classes { #expect(abs(probabilities[j] - reference[j]) < 1e-5) }
            #expect(net.probabilities(features: Array(windows[(n * size)..<((n + 1) * size)])) == probabilities.map(Double.init))
        }
        #expect(largest > 0.01)  // the comparison saw real values
    }
}
