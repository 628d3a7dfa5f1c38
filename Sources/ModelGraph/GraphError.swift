import Foundation

/// Why a ``Graph`` is not one a runner may execute: a bad value reference, a cycle, or shapes
/// that do not agree with what an operation computes. One line; the importer or bundle loader
/// prefixes the file name.
public struct GraphError: Error, Equatable, CustomStringConvertible, LocalizedError {
    public let detail: String
    public init(_ detail: String) { self.detail = detail }
    public var description: String { detail }
    public var errorDescription: String? { detail }
}
