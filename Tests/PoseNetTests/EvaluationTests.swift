import Foundation
import Testing
@testable import PoseNet
@testable import PoseEvaluation
import PoseCore

/// A person whose 17 keypoints are labeled at (x0 + 10 k, y0 + 5 k), visibility 2.
func person(id: Int, image: Int, x0: Double = 100, y0: Double = 100, area: Double = 10_000,
            visible: Set<Int> = Set(0..<17), isCrowd: Bool = false, bbox: [Double] = [0, 0, 0, 0]) -> CocoKeypointDataset.Annotation {
    var keypoints: [Double] = []
    for k in 0..<17 {
        keypoints += visible.contains(k) ? [x0 + 10 * Double(k), y0 + 5 * Double(k), 2] : [0, 0, 0]
    }
    return .init(id: id, imageID: image, keypoints: keypoints, area: area, bbox: bbox, isCrowd: isCrowd)
}

/// A detection exactly on `person`'s labeled keypoints (unlabeled ones at the first labeled one).
func detection(on a: CocoKeypointDataset.Annotation, score: Double, shift: Double = 0) -> KeypointDetection {
    let first = (0..<17).first { a.keypoints[3 * $0 + 2] > 0 } ?? 0
    let points = (0..<17).map { k -> Point in
        let j = a.keypoints[3 * k + 2] > 0 ? k : first
        return Point(x: a.keypoints[3 * j] + shift, y: a.keypoints[3 * j + 1])
    }
    return KeypointDetection(imageID: a.imageID, keypoints: points, score: score)
}

/// Equal up to pycocotools' `tp / (tp + fp + np.spacing(1))`, which makes a perfect precision 1 − 2⁻⁵².
func near(_ a: Double, _ b: Double) -> Bool { abs(a - b) <= 1e-12 }

func images(_ ids: [Int]) -> [CocoKeypointDataset.Image] {
    ids.map { .init(id: $0, fileName: "img\($0).jpg", width: 640, height: 480) }
}

@Suite struct EvaluationTests {
    @Test func perfectDetectionsScoreOne() throws {
        let people = [person(id: 1, image: 1), person(id: 2, image: 1, x0: 300), person(id: 3, image: 2)]
        let gt = CocoKeypointDataset(images: images([1, 2]), annotations: people)
        let result = try evaluateKeypoints(groundTruth: gt, detections: people.map { detection(on: $0, score: 0.9) })
        #expect(near(result.averagePrecision, 1) && near(result.averagePrecision50, 1) && near(result.averagePrecision75, 1))
        #expect(result.averageRecall == 1)
        // area 10 000 > 96²: large only, so the medium range has no people and pycocotools reports -1.
        #expect(near(result.averagePrecisionLarge, 1) && result.averagePrecisionMedium == -1)
    }

    /// One labeled keypoint (nose, σ = 0.026) off by d: OKS = exp(-d² / (2 · area · (2σ)²)).
    /// Choosing OKS = 0.72 matches at thresholds 0.50…0.70 (5 of 10) only: AP = 0.5, AP50 = 1, AP75 = 0.
    @Test func oksBetweenThresholds() throws {
        let area = 2500.0, sigma = 0.026
        let d = (-log(0.72) * 2 * area * (2 * sigma) * (2 * sigma)).squareRoot()
        let gtPerson = person(id: 1, image: 1, area: area, visible: [0])
        let det = detection(on: gtPerson, score: 0.5, shift: d)
        let oks = ObjectKeypointSimilarity.similarity(detection: det.keypoints, groundTruth: gtPerson)
        #expect(abs(oks - 0.72) < 1e-12)
        let result = try evaluateKeypoints(groundTruth: .init(images: images([1]), annotations: [gtPerson]), detections: [det])
        #expect(abs(result.averagePrecision - 0.5) < 1e-12)
        #expect(near(result.averagePrecision50, 1) && result.averagePrecision75 == 0)
        #expect(abs(result.averageRecall - 0.5) < 1e-12)
    }

    /// Scores 0.9 (false positive), 0.8 and 0.7 (hits) for two people: precision 0, ½, ⅔ at
    /// recall 0, ½, 1; the envelope is ⅔ everywhere, so AP = ⅔ at every threshold.
    @Test func falsePositiveRankedFirst() throws {
        let a = person(id: 1, image: 1), b = person(id: 2, image: 1, x0: 400)
        let stray = KeypointDetection(imageID: 1, keypoints: Array(repeating: Point(x: 600, y: 20), count: 17), score: 0.9)
        let result = try evaluateKeypoints(groundTruth: .init(images: images([1]), annotations: [a, b]),
                                           detections: [stray, detection(on: a, score: 0.8), detection(on: b, score: 0.7)])
        #expect(abs(result.averagePrecision - 2.0 / 3.0) < 1e-12)
        #expect(result.averageRecall == 1)
        // Ranked last instead, the stray costs nothing: precision is 1 up to full recall.
        let reordered = try evaluateKeypoints(groundTruth: .init(images: images([1]), annotations: [a, b]),
                                              detections: [KeypointDetection(imageID: 1, keypoints: stray.keypoints, score: 0.1),
                                                           detection(on: a, score: 0.8), detection(on: b, score: 0.7)])
        #expect(near(reordered.averagePrecision, 1))
    }

    /// A missed person halves recall; precision stays 1 up to recall ½ (51 of 101 points): AP = 51/101.
    @Test func missedPerson() throws {
        let a = person(id: 1, image: 1), b = person(id: 2, image: 2)
        let result = try evaluateKeypoints(groundTruth: .init(images: images([1, 2]), annotations: [a, b]),
                                           detections: [detection(on: a, score: 0.8)])
        #expect(abs(result.averagePrecision - 51.0 / 101.0) < 1e-12)
        #expect(abs(result.averageRecall - 0.5) < 1e-12)
    }

    /// A person with no labeled keypoints is an ignore region: a detection inside twice its box
    /// matches it and counts as neither hit nor false positive, even when ranked first.
    @Test func zeroKeypointPersonIsIgnored() throws {
        let real = person(id: 1, image: 1)
        let empty = person(id: 2, image: 1, visible: [], bbox: [400, 300, 50, 50])
        let inside = KeypointDetection(imageID: 1, keypoints: Array(repeating: Point(x: 420, y: 320), count: 17), score: 0.95)
        let result = try evaluateKeypoints(groundTruth: .init(images: images([1]), annotations: [real, empty]),
                                           detections: [inside, detection(on: real, score: 0.5)])
        #expect(near(result.averagePrecision, 1))
        #expect(ObjectKeypointSimilarity.similarity(detection: inside.keypoints, groundTruth: empty) == 1)
        // Far outside the doubled box it is an ordinary false positive: AP drops to ½.
        let outside = KeypointDetection(imageID: 1, keypoints: Array(repeating: Point(x: 5, y: 5), count: 17), score: 0.95)
        let worse = try evaluateKeypoints(groundTruth: .init(images: images([1]), annotations: [real, empty]),
                                          detections: [outside, detection(on: real, score: 0.5)])
        #expect(abs(worse.averagePrecision - 0.5) < 1e-12)
    }

    /// A crowd region absorbs any number of matching detections without counting them.
    @Test func crowdAbsorbsDuplicates() throws {
        let real = person(id: 1, image: 1)
        let crowd = person(id: 2, image: 1, x0: 300, isCrowd: true)
        let dets = [detection(on: crowd, score: 0.9), detection(on: crowd, score: 0.85, shift: 1), detection(on: real, score: 0.5)]
        let result = try evaluateKeypoints(groundTruth: .init(images: images([1]), annotations: [real, crowd]), detections: dets)
        #expect(near(result.averagePrecision, 1))
    }

    @Test func matchesPycocotoolsOnRandomFixture() throws {
        let url = FileManager.default.temporaryDirectory.appendingPathComponent("posekit-eval-fixture-\(getpid()).json")
        try PycocotoolsFixture.groundTruthJSON.write(to: url, atomically: true, encoding: .utf8)
        defer { try? FileManager.default.removeItem(at: url) }
        let gt = try CocoKeypointDataset(contentsOf: url)
        let detections = PycocotoolsFixture.detections.map { image, score, xy in
            KeypointDetection(imageID: image, keypoints: (0..<17).map { Point(x: xy[2 * $0], y: xy[2 * $0 + 1]) }, score: score)
        }
        let r = try evaluateKeypoints(groundTruth: gt, detections: detections)
        let ours = [r.averagePrecision, r.averagePrecision50, r.averagePrecision75, r.averagePrecisionMedium,
                    r.averagePrecisionLarge, r.averageRecall, r.averageRecall50, r.averageRecall75,
                    r.averageRecallMedium, r.averageRecallLarge]
        for (i, (a, b)) in zip(ours, PycocotoolsFixture.stats).enumerated() {
            #expect(abs(a - b) <= 1e-12, "stat \(i): \(a) vs pycocotools \(b)")
        }
    }

    /// areaScale 2 is the same as annotating twice the area: OKS = exp(-d² / (2 · 2A · (2σ)²)).
    @Test func oksAreaScaleDoublesTheArea() throws {
        let narrow = person(id: 1, image: 1, area: 2500, visible: [0, 5, 11])
        var wide = narrow
        wide.area = 5000
        let det = detection(on: narrow, score: 1, shift: 6)
        let scaled = ObjectKeypointSimilarity.similarity(detection: det.keypoints, groundTruth: narrow, areaScale: 2)
        #expect(scaled == ObjectKeypointSimilarity.similarity(detection: det.keypoints, groundTruth: wide))
        // By hand: d = 6 px on the nose, left shoulder and left hip.
        let expected = [0.026, 0.079, 0.107].map { s in exp(-36 / (2 * 5000 * (2 * s) * (2 * s))) }.reduce(0, +) / 3
        #expect(abs(scaled - expected) < 1e-12)
        #expect(throws: EvaluationError.self) {
            try evaluateKeypoints(groundTruth: .init(images: images([1]), annotations: [narrow]), detections: [det], oksAreaScale: 0)
        }
    }

    @Test func linspaceMatchesNumpy() {
        // numpy: list(np.linspace(.5, .95, 10)) prints 0.8999999999999999 for the 9th value.
        #expect(KeypointEvaluationSettings.oksThresholds[8] == 0.8999999999999999)
        #expect(KeypointEvaluationSettings.oksThresholds[5] == 0.75 && KeypointEvaluationSettings.oksThresholds[0] == 0.5)
        #expect(KeypointEvaluationSettings.recallThresholds.count == 101 && KeypointEvaluationSettings.recallThresholds[100] == 1)
    }

    @Test func loadsSharedGroundTruth() throws {
        let url = sharedFolder().appendingPathComponent("media/images/ground_truth.json")
        let gt = try CocoKeypointDataset(contentsOf: url)
        #expect(gt.images.count == 13 && gt.annotations.count == 23)
        #expect(gt.image(named: "/somewhere/coco_000000000785.jpg")?.id == 1)
        #expect(gt.annotations.filter { $0.labeledKeypointCount == 0 }.count == 2)
        // The ground truth itself as detections, score 0.9 each. The two people without labeled
        // keypoints get detections at (0, 0), outside their ignore boxes: false positives tied
        // with the hits, which pycocotools 2.0.11 scores [0.9259578131726213, 0.9259578131726216,
        // 0.9259578131726216, 1, 1, 1, 1, 1, 1, 1].
        let detections = gt.annotations.map { detection(on: $0, score: 0.9) }
        let result = try evaluateKeypoints(groundTruth: gt, detections: detections)
        #expect(near(result.averagePrecision, 0.9259578131726213), "AP \(result.averagePrecision)")
        #expect(near(result.averagePrecision50, 0.9259578131726216) && near(result.averagePrecision75, 0.9259578131726216))
        #expect(near(result.averagePrecisionMedium, 1) && near(result.averagePrecisionLarge, 1))
        #expect(result.averageRecall == 1 && result.averageRecallMedium == 1 && result.averageRecallLarge == 1)
        // Without those two, every labeled person is found exactly.
        let labeled = gt.annotations.filter { $0.labeledKeypointCount > 0 }.map { detection(on: $0, score: 0.9) }
        #expect(near(try evaluateKeypoints(groundTruth: gt, detections: labeled).averagePrecision, 1))
    }

    @Test func rejectsBadInput() throws {
        let gt = CocoKeypointDataset(images: images([1]), annotations: [person(id: 1, image: 1)])
        #expect(throws: EvaluationError.self) {
            try evaluateKeypoints(groundTruth: gt, detections: [KeypointDetection(imageID: 7, keypoints: Array(repeating: Point(x: 0, y: 0), count: 17), score: 1)])
        }
        #expect(throws: EvaluationError.self) {
            try evaluateKeypoints(groundTruth: gt, detections: [KeypointDetection(imageID: 1, keypoints: [], score: 1)])
        }
        #expect(throws: EvaluationError.self) {
            try evaluateKeypoints(groundTruth: gt, detections: [KeypointDetection(imageID: 1, keypoints: Array(repeating: Point(x: .nan, y: 0), count: 17), score: 1)])
        }
        let bad = FileManager.default.temporaryDirectory.appendingPathComponent("posekit-bad-gt-\(getpid()).json")
        try #"{"images": [], "annotations": [{"id": 1, "image_id": 1, "category_id": 1, "keypoints": [1, 2], "area": 5}]}"#
            .write(to: bad, atomically: true, encoding: .utf8)
        defer { try? FileManager.default.removeItem(at: bad) }
        #expect(throws: EvaluationError.self) { try CocoKeypointDataset(contentsOf: bad) }
        let broken = CocoKeypointDataset(images: images([1]), annotations: [.init(id: 1, imageID: 1, keypoints: [1, 2, 2], area: 5)])
        #expect(throws: EvaluationError.self) { try evaluateKeypoints(groundTruth: broken, detections: []) }
        // No detections at all: AP 0, not a crash.
        #expect(try evaluateKeypoints(groundTruth: gt, detections: []).averagePrecision == 0)
    }
}
