import Foundation
import FrameIO

/// Inputs that show one image, such as `x.jpg` and its converted copy `x.ppm`: `eval` would
/// score that image twice and `pose --format coco` would list it twice under one `image_id`.
///
/// Two files of one directory argument (the shared image folders hold both copies) keep one of
/// them, with a warning naming both: the copy posekit reads as it is (PNM) over one an ffmpeg
/// decoder makes pixels of, else the first by name. Two inputs given separately (two paths, a
/// path and a directory holding it, two directories) are refused in one line naming both.
public enum SameImageInputs {
    /// `inputs` (directories already expanded from `arguments`) paired with their image ids,
    /// each image once, in input order.
    ///
    /// - Parameters:
    ///   - imageID: the image an input shows (throws when it has none).
    ///   - sameImage: the end of the message for two inputs of image `id`, after "A and B are
    ///     both": what the image is, and what to do about it when they were given separately.
    ///   - warn: receives the warning for two files of one directory (one kept).
    public static func unique(_ inputs: [String], arguments: [String], imageID: (String) throws -> Int,
                              warn: (String) -> Void,
                              sameImage: (_ id: Int, _ first: String, _ second: String) -> (what: String, remedy: String))
        throws -> [(input: String, imageID: Int)] {
        var kept: [(input: String, imageID: Int)] = []
        var indexOfImage: [Int: Int] = [:]
        for input in inputs {
            let id = try imageID(input)
            guard let index = indexOfImage[id] else {
                indexOfImage[id] = kept.count
                kept.append((input, id))
                continue
            }
            let earlier = kept[index].input
            let message = sameImage(id, earlier, input)
            guard earlier != input else { throw EvaluationInputError("\(input) is given twice (\(message.what)); give it once") }
            guard let directory = directoryArgument(holding: earlier, arguments: arguments),
                  directory == directoryArgument(holding: input, arguments: arguments) else {
                throw EvaluationInputError("\(earlier) and \(input) are both \(message.what); \(message.remedy)")
            }
            let preferred = isReadDirectly(input) && !isReadDirectly(earlier) ? input : earlier
            warn("\(earlier) and \(input) are both \(message.what); using \(preferred) only")
            kept[index].input = preferred
        }
        return kept
    }

    /// The directory argument `input` was listed from, or nil when it was given by name.
    private static func directoryArgument(holding input: String, arguments: [String]) -> String? {
        guard !arguments.contains(input) else { return nil }
        return arguments.first { argument in
            let prefix = argument.hasSuffix("/") ? argument : argument + "/"
            return input.hasPrefix(prefix) && !input.dropFirst(prefix.count).contains("/")
        }
    }

    /// Whether posekit reads `path` itself (PNM), with no decoder between the file and its pixels.
    private static func isReadDirectly(_ path: String) -> Bool { MediaFormat.isPNMName(path) }
}

/// An input `eval` or `pose --format coco` cannot score or list (one image twice, no image id):
/// one line.
public struct EvaluationInputError: LocalizedError, CustomStringConvertible {
    public let message: String
    public init(_ message: String) { self.message = message }
    public var description: String { message }
    public var errorDescription: String? { message }
}
