import PoseNet
import PoseCore
/// COCO keypoint detection metrics, computed exactly as pycocotools `COCOeval(iouType="keypoints")`.
///
/// Values are in 0...1, or -1 where pycocotools prints -1 (no ground truth in that area range).
public struct KeypointEvaluation: Sendable, Equatable {
    /// AP averaged over OKS thresholds 0.50:0.05:0.95, all areas: the headline COCO keypoint AP.
    public var averagePrecision: Double
    /// AP at OKS 0.50.
    public var averagePrecision50: Double
    /// AP at OKS 0.75.
    public var averagePrecision75: Double
    /// AP for people of area 32²...96².
    public var averagePrecisionMedium: Double
    /// AP for people of area above 96².
    public var averagePrecisionLarge: Double
    /// Recall averaged over the OKS thresholds.
    public var averageRecall: Double
    public var averageRecall50: Double
    public var averageRecall75: Double
    public var averageRecallMedium: Double
    public var averageRecallLarge: Double

    /// The ten lines pycocotools' `summarize()` prints.
    public var summary: String {
        let rows: [(String, String, String, Double)] = [
            ("Average Precision", "0.50:0.95", "   all", averagePrecision),
            ("Average Precision", "0.50", "   all", averagePrecision50),
            ("Average Precision", "0.75", "   all", averagePrecision75),
            ("Average Precision", "0.50:0.95", "medium", averagePrecisionMedium),
            ("Average Precision", "0.50:0.95", " large", averagePrecisionLarge),
            ("Average Recall", "0.50:0.95", "   all", averageRecall),
            ("Average Recall", "0.50", "   all", averageRecall50),
            ("Average Recall", "0.75", "   all", averageRecall75),
            ("Average Recall", "0.50:0.95", "medium", averageRecallMedium),
            ("Average Recall", "0.50:0.95", " large", averageRecallLarge),
        ]
        return rows.map { title, iou, area, value in
            let kind = title.hasSuffix("Precision") ? "(AP)" : "(AR)"
            let padded = title.padding(toLength: 18, withPad: " ", startingAt: 0)
            let iouPadded = iou.padding(toLength: 9, withPad: " ", startingAt: 0)
            return " \(padded) \(kind) @[ IoU=\(iouPadded) | area=\(area) | maxDets= 20 ] = \(formatThree(value))"
        }.joined(separator: "\n")
    }

    private func formatThree(_ value: Double) -> String {
        let negative = value < 0
        let thousandths = Int((abs(value) * 1000).rounded())
        let fraction = String(thousandths % 1000)
        return (negative ? "-" : "") + "\(thousandths / 1000)." + String(repeating: "0", count: 3 - fraction.count) + fraction
    }
}

/// COCO evaluation settings for keypoints (pycocotools `Params(iouType="keypoints")`).
public enum KeypointEvaluationSettings {
    /// `np.linspace(start, stop, count)`, bit for bit: `i · ((stop − start) / (count − 1)) + start`,
    /// last element exactly `stop`.
    static func linspace(_ start: Double, _ stop: Double, _ count: Int) -> [Double] {
        let step = (stop - start) / Double(count - 1)
        var values = (0..<count).map { Double($0) * step + start }
        values[count - 1] = stop
        return values
    }
    /// OKS thresholds 0.50, 0.55, …, 0.95.
    public static let oksThresholds = linspace(0.5, 0.95, 10)
    /// The 101 recall points 0, 0.01, …, 1 precision is sampled at.
    public static let recallThresholds = linspace(0, 1, 101)
    /// Area ranges (squared pixels): all, medium (32²...96²), large (96²...1e10).
    public static let allAreas: ClosedRange<Double> = 0...1e10
    public static let mediumAreas: ClosedRange<Double> = 1024...9216
    public static let largeAreas: ClosedRange<Double> = 9216...1e10
    /// Detections per image considered (highest scores first).
    public static let maxDetections = 20
}

/// Evaluates keypoint detections against COCO ground truth with pycocotools' algorithm:
/// per image, detections sorted by score (at most 20) are greedily matched to people at each OKS
/// threshold; crowd people and people with no labeled keypoints are ignored (a detection
/// matching them is neither right nor wrong); precision is made monotone and sampled at 101 recall
/// points; AP is the mean over thresholds and recall points.
///
/// Every ground-truth image is evaluated, whether or not it has detections.
///
/// - Parameter oksAreaScale: scale of the annotated area inside OKS (see
///   ``ObjectKeypointSimilarity/similarity(detection:groundTruth:areaScale:)``). Keep the default 1
///   for COCO-comparable numbers; 2 reproduces the convention of the reference AP figures in
///   `shared/README.md`. Area ranges (medium / large) always use the annotated area.
///
/// - Throws: ``EvaluationError/invalidDetection(_:)`` for a detection on an image the ground truth
///   does not list, without 17 keypoints, or with a non-finite score or position;
///   ``EvaluationError/invalidGroundTruth(_:)`` for an annotation without 17 keypoints or a 4-value bbox.
public func evaluateKeypoints(groundTruth: CocoKeypointDataset, detections: [KeypointDetection],
                              oksAreaScale: Double = 1) throws -> KeypointEvaluation {
    guard oksAreaScale.isFinite, oksAreaScale > 0 else {
        throw EvaluationError.invalidDetection("oksAreaScale must be finite and positive, got \(oksAreaScale)")
    }
    let imageIDs = Set(groundTruth.images.map(\.id)).sorted()   // pycocotools: sorted(getImgIds())
    let known = Set(imageIDs)
    var detectionsByImage: [Int: [KeypointDetection]] = [:]
    for (n, d) in detections.enumerated() {
        guard known.contains(d.imageID) else {
            throw EvaluationError.invalidDetection("detection \(n) is on image \(d.imageID), which the ground truth does not list")
        }
        guard d.keypoints.count == BodyPart.count else {
            throw EvaluationError.invalidDetection("detection \(n) has \(d.keypoints.count) keypoints, expected \(BodyPart.count)")
        }
        guard d.score.isFinite, d.keypoints.allSatisfy({ $0.x.isFinite && $0.y.isFinite }) else {
            throw EvaluationError.invalidDetection("detection \(n) on image \(d.imageID) has a non-finite score or position")
        }
        detectionsByImage[d.imageID, default: []].append(d)
    }
    var groundTruthByImage: [Int: [CocoKeypointDataset.Annotation]] = [:]
    for a in groundTruth.annotations {
        guard a.keypoints.count == 3 * BodyPart.count, a.bbox.count == 4, a.area.isFinite else {
            throw EvaluationError.invalidGroundTruth(
                "annotation \(a.id) needs \(3 * BodyPart.count) keypoint values, a 4-value bbox and a finite area")
        }
        groundTruthByImage[a.imageID, default: []].append(a)
    }

    let thresholds = KeypointEvaluationSettings.oksThresholds
    let areas = [KeypointEvaluationSettings.allAreas, KeypointEvaluationSettings.mediumAreas, KeypointEvaluationSettings.largeAreas]
    var perArea = [[ImageMatching]](repeating: [], count: areas.count)
    for id in imageIDs {
        let people = groundTruthByImage[id] ?? []
        // Stable sort by decreasing score, then the top 20 (pycocotools' mergesort on -score).
        let ranked = Array((detectionsByImage[id] ?? []).enumerated()
            .sorted { $0.element.score != $1.element.score ? $0.element.score > $1.element.score : $0.offset < $1.offset }
            .map(\.element).prefix(KeypointEvaluationSettings.maxDetections))
        let similarities = ranked.map { d in
            people.map { ObjectKeypointSimilarity.similarity(detection: d.keypoints, groundTruth: $0, areaScale: oksAreaScale) }
        }
        for (a, range) in areas.enumerated() {
            if let m = ImageMatching.match(detections: ranked, groundTruth: people, similarities: similarities,
                                           areaRange: range, thresholds: thresholds) {
                perArea[a].append(m)
            }
        }
    }
    let curves = perArea.map { PrecisionRecall(images: $0, thresholds: thresholds.count) }
    return KeypointEvaluation(
        averagePrecision: curves[0].meanPrecision(threshold: nil),
        averagePrecision50: curves[0].meanPrecision(threshold: 0),
        averagePrecision75: curves[0].meanPrecision(threshold: 5),
        averagePrecisionMedium: curves[1].meanPrecision(threshold: nil),
        averagePrecisionLarge: curves[2].meanPrecision(threshold: nil),
        averageRecall: curves[0].meanRecall(threshold: nil),
        averageRecall50: curves[0].meanRecall(threshold: 0),
        averageRecall75: curves[0].meanRecall(threshold: 5),
        averageRecallMedium: curves[1].meanRecall(threshold: nil),
        averageRecallLarge: curves[2].meanRecall(threshold: nil))
}
