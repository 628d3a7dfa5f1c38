import Foundation
import PoseKit

/// A model file, input tensor or output directory that cannot be read, run or written, as one
/// line naming the file (`posekit` prints it as `posekit: error: <message>`, exit status 1).
public struct ModelFileError: Error, CustomStringConvertible {
    /// The line.
    public let message: String

    /// An error saying `message`.
    public init(_ message: String) { self.message = message }

    public var description: String { message }

    /// Runs `body`, which reads `path`; any failure becomes one line naming the file.
    static func reading<T>(_ path: String, _ body: () throws -> T) throws -> T {
        do { return try body() } catch let error as ModelFileError { throw error } catch {
            let text = PlainErrorMessage.describe(error)
            throw ModelFileError(text.contains(path) ? text : "\(path): \(text)")
        }
    }

    /// Creates the directory an output file goes into (as `-o Weights/x.pkw` expects).
    public static func creatingParent(of path: String) throws {
        let parent = URL(fileURLWithPath: path).deletingLastPathComponent().path
        do { try FileManager.default.createDirectory(atPath: parent, withIntermediateDirectories: true) } catch {
            throw ModelFileError("cannot create the directory of \(path): \(PlainErrorMessage.describe(error))")
        }
    }
}
