import Foundation
import Protobuf

/// Why a `.mlmodel` could not be read as the Core ML specification says, before any family looks
/// at it: broken protobuf, an integer outside its range, weights stored in a way no family runs,
/// a layer whose parameters are not what its kind needs. Families wrap it in their own error with
/// the file's name (PoseNet's `ImportError`, ActionNet's `CoreMLModelError`).
public struct CoreMLFormatError: Error, Equatable, Sendable, CustomStringConvertible {
    /// The layer whose message is at fault (nil: the model, its description or its network).
    public let layer: String?
    /// What is wrong, in one line.
    public let detail: String
    /// Whether the protobuf bytes themselves are broken (truncated, bad lengths or wire types),
    /// rather than a well-formed value the reader refuses.
    public let isMalformed: Bool

    public init(layer: String? = nil, _ detail: String, malformed: Bool = false) {
        self.layer = layer
        self.detail = detail
        self.isMalformed = malformed
    }

    /// A wire-format error, as the families have always reported it (`truncated protobuf: ...`).
    init(_ error: ProtobufError, layer: String? = nil) {
        self.init(layer: layer, "\(error)", malformed: true)
    }

    public var description: String { layer.map { "layer '\($0)': \(detail)" } ?? detail }
}

extension CoreMLFormatError: LocalizedError {
    /// ``description``, one line.
    public var errorDescription: String? { description }
}

/// Runs `body`, turning the wire reader's errors into ``CoreMLFormatError`` (of `layer`, if given).
func readingProtobuf<T>(layer: String? = nil, _ body: () throws -> T) throws -> T {
    do { return try body() } catch let error as ProtobufError { throw CoreMLFormatError(error, layer: layer) }
}
