import Tensor

/// A network a MediaPipe pipeline runs: one `[1, H, W, 3]` NHWC float32 input, its outputs in the
/// model's output order (`Identity`, `Identity_1`, …), each as a tensor of the model's element
/// count (the pipelines read them flat).
///
/// An imported TFLite graph run by the graph runner is one; tests also replay MediaPipe's recorded
/// outputs through it.
public protocol MediaPipeModel: AnyObject {
    /// Runs the model on `input`; returns every output, in order.
    func run(_ input: Tensor) throws -> [Tensor]
}

extension MediaPipeError {
    /// Checks a model returned at least `expected` outputs.
    static func checkOutputCount(_ outputs: [Tensor], _ expected: Int, model: String) throws {
        guard outputs.count >= expected else { throw MediaPipeError.outputCount(model: model, count: outputs.count, expected: expected) }
    }
}
