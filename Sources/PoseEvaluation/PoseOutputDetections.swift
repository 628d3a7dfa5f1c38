import Foundation
import FrameIO
import PoseCore

extension CocoResults {
    /// The detections of a COCO results list (`posekit pose --format coco`), or nil when `reader`
    /// holds JSON Lines instead (the first non-blank byte is not `[`); then `reader` goes on at
    /// that byte, so standard input is read only once.
    public static func decode(ifListIn reader: LineReader) throws -> [KeypointDetection]? {
        let source = reader.source
        while let byte = try source.peekByte(), [0x20, 0x09, 0x0A, 0x0D].contains(byte) { _ = try source.readByte() }
        guard try source.peekByte() == UInt8(ascii: "[") else { return nil }
        var bytes: [UInt8] = []
        while let byte = try source.readByte() { bytes.append(byte) }
        return try decode(Data(bytes))
    }
}

extension KeypointDetection {
    /// The detections of `posekit pose` JSON Lines read from `reader` (the file `poses`), each
    /// line's image found by its "source" with `imageID` (in the ground truth `groundTruth`), and
    /// the images they are of; each image once (a second line of one image is refused: it would
    /// count twice).
    public static func fromPoseLines(_ reader: LineReader, name poses: String, groundTruthName groundTruth: String,
                                     imageID: (String) throws -> Int) throws -> (images: Set<Int>, detections: [KeypointDetection]) {
        var evaluated = Set<Int>()
        var detections: [KeypointDetection] = []
        var decoder = PoseJSONLinesDecoder()
        var lineOfImage: [Int: (line: Int, source: String)] = [:]
        var lineNumber = 0
        try reader.forEachLine { line in
            lineNumber += 1
            guard let frame = try decoder.decode(line: line) else { return }
            guard let name = frame.source else { throw EvaluationInputError("\(poses): a line has no \"source\" to match with the ground truth") }
            let id = try imageID(name)
            // One line per image: a second one (a video's next frame, a copy under another name) would count it twice.
            if let first = lineOfImage[id] {
                throw EvaluationInputError("\(poses): line \(lineNumber) (\(name)) is image \(id) of \(groundTruth), which line \(first.line) (\(first.source)) already gave; give each image once")
            }
            lineOfImage[id] = (lineNumber, name)
            evaluated.insert(id)
            detections += frame.poses.compactMap { KeypointDetection(imageID: id, pose: $0, imageWidth: frame.width, imageHeight: frame.height) }
        }
        return (evaluated, detections)
    }
}
