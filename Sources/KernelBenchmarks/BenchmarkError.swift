import Foundation

/// A benchmark that cannot run as asked (a peer that is not installed, a model that cannot be
/// read): one line, as `posekit` prints it after `posekit: error:`.
public struct BenchmarkError: LocalizedError, CustomStringConvertible {
    public let message: String
    public init(_ message: String) { self.message = message }
    public var description: String { message }
    public var errorDescription: String? { message }
}
