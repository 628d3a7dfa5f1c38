import PoseNet
import PoseCore
import Foundation

/// The COCO keypoint results format, the JSON list pycocotools' `COCO.loadRes` takes:
///
///     [{"image_id": 785, "category_id": 1, "score": 0.91,
///       "keypoints": [x1, y1, v1, ..., x17, y17, v17]}, ...]
///
/// Written by `posekit pose --format coco`, read by `posekit eval --poses`. Positions are
/// original-image pixels; each `v` is the keypoint's score (pycocotools ignores it for results;
/// it is kept for readers that want it). Numbers follow PoseKit's one rule (``JSONText``): at most
/// 2 decimals for pixels and 4 for scores, trailing zeros dropped, as in pose lines.
public enum CocoResults {
    /// The person category of COCO keypoint annotations.
    public static let personCategory = 1

    /// One result object per pose, as a JSON list (one object per line, for diffable files):
    /// each pose's COCO-17 keypoints (through its set's map; a pose without them, a hand, is
    /// left out), positions as given (clamp them first for points on the image).
    public static func encode(_ given: [(imageID: Int, pose: Pose)]) -> String {
        let results = given.compactMap { result in result.pose.cocoSeventeen.map { (imageID: result.imageID, pose: $0) } }
        var json = JSONText(capacity: 64 + 700 * results.count)
        json.raw("[")
        for (index, result) in results.enumerated() {
            json.raw(index == 0 ? "\n" : ",\n")
            json.raw("{\"image_id\": "); json.integer(result.imageID)
            json.raw(", \"category_id\": "); json.integer(personCategory)
            json.raw(", \"score\": "); json.number(result.pose.score, decimals: JSONText.Decimals.scores)
            json.raw(", \"keypoints\": [")
            for (k, keypoint) in result.pose.keypoints.enumerated() {
                if k > 0 { json.raw(", ") }
                json.number(keypoint.position.x, decimals: JSONText.Decimals.pixels); json.raw(", ")
                json.number(keypoint.position.y, decimals: JSONText.Decimals.pixels); json.raw(", ")
                json.number(keypoint.score, decimals: JSONText.Decimals.scores)
            }
            json.raw("]}")
        }
        json.raw(results.isEmpty ? "]\n" : "\n]\n")
        return json.text
    }

    /// Parses a results list; throws ``EvaluationError/invalidDetection(_:)`` naming the first bad entry.
    public static func decode(_ data: Data) throws -> [KeypointDetection] {
        guard let list = (try? JSONSerialization.jsonObject(with: data)) as? [Any] else {
            throw EvaluationError.invalidDetection("COCO results must be a JSON list of {\"image_id\", \"keypoints\", \"score\"} objects")
        }
        return try list.enumerated().map { index, entry in
            guard let object = entry as? [String: Any],
                  let imageID = (object["image_id"] as? NSNumber)?.intValue,
                  let values = object["keypoints"] as? [NSNumber], values.count == 3 * BodyPart.count,
                  let score = (object["score"] as? NSNumber)?.doubleValue, score.isFinite else {
                throw EvaluationError.invalidDetection("COCO result \(index) needs an integer \"image_id\", 51 numbers in \"keypoints\" and a \"score\"")
            }
            let numbers = values.map(\.doubleValue)
            guard numbers.allSatisfy(\.isFinite) else { throw EvaluationError.invalidDetection("COCO result \(index) has a non-finite keypoint value") }
            let points = (0..<BodyPart.count).map { Point(x: numbers[3 * $0], y: numbers[3 * $0 + 1]) }
            return KeypointDetection(imageID: imageID, keypoints: points, score: score)
        }
    }

    /// The image ID a COCO-style file name implies: the digits of its name (`000000000785.jpg` →
    /// 785), else its last run of digits (`coco_000000000785.ppm` → 785); nil without digits.
    public static func imageID(fromFileName path: String) -> Int? {
        let stem = URL(fileURLWithPath: path).deletingPathExtension().lastPathComponent
        var runs: [Substring] = []
        var current = stem.startIndex
        while let start = stem[current...].firstIndex(where: \.isASCIIDigit) {
            let end = stem[start...].firstIndex(where: { !$0.isASCIIDigit }) ?? stem.endIndex
            runs.append(stem[start..<end])
            current = end
        }
        guard let digits = runs.last?.drop(while: { $0 == "0" }) else { return nil }
        return digits.isEmpty ? 0 : Int(digits.prefix(18))
    }
}

private extension Character {
    var isASCIIDigit: Bool { isASCII && isNumber }
}
