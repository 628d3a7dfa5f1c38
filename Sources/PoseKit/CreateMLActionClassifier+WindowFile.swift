import ActionNet
import Foundation
import PoseNet

extension CreateMLActionClassifier {
    /// The prediction for the one window in the file at `path` (`PoseWindowFile`: `.npy` float32
    /// [T, 3, 18] or JSON [T][3][18]); a file that cannot be read, or a window of another shape
    /// than the model's input, is one line naming the file.
    public func classify(windowAt path: String) throws -> CreateMLPrediction {
        let window: (shape: [Int], values: [Float])
        do { window = try PoseWindowFile.read(contentsOf: URL(fileURLWithPath: path)) } catch {
            throw RunError(PlainErrorMessage.describe(error, input: path))
        }
        guard window.shape == inputShape else {
            throw RunError("\(path): window is \(window.shape), \(fileName) takes \(inputShape)")
        }
        return try classify(window.values)
    }
}
