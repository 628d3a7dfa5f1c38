import Foundation

/// Why a `.tflite` file could not be imported: one line naming the file and the problem (a
/// malformed FlatBuffer at a byte offset, an op PoseKit does not run, a shape it refuses...).
public struct TFLiteError: Error, Equatable, CustomStringConvertible, LocalizedError {
    /// The file's path as given.
    public let file: String
    /// What is wrong, in one line.
    public let detail: String

    public init(file: String, _ detail: String) {
        self.file = file
        self.detail = detail
    }

    public var description: String { "\(file): \(detail)" }
    public var errorDescription: String? { description }
}
