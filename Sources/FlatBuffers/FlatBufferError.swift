import Foundation

/// Why a FlatBuffers buffer could not be read: every case names the byte offset where reading
/// failed, so a hostile or truncated file is reported precisely and never read past its end.
public struct FlatBufferError: Error, Equatable, CustomStringConvertible, LocalizedError {
    /// Byte offset (from the start of the buffer) of the field, offset or length that is wrong.
    public let offset: Int
    /// What is wrong there, in a few words.
    public let detail: String

    public init(offset: Int, _ detail: String) {
        self.offset = offset
        self.detail = detail
    }

    public var description: String { "byte \(offset): \(detail)" }
    public var errorDescription: String? { description }
}
