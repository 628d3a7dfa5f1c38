/// MediaPipe's `NonMaxSuppressionCalculator` with the WEIGHTED algorithm and IoU overlap, as both
/// detectors use it (`min_suppression_threshold` 0.3, no maximum count).
///
/// Detections are taken by descending score; the top one and every remaining one overlapping it
/// by more than the threshold (itself included) are replaced by one detection: their
/// score-weighted mean box corners and keypoints, with the top score. Repeated on the rest.
public enum NonMaxSuppression {
    public static func weighted(_ detections: [Detection], iouThreshold: Float = 0.3) -> [Detection] {
        var remaining = detections.indices.sorted { detections[$0].score > detections[$1].score }
        var output: [Detection] = []
        while let topIndex = remaining.first {
            let top = detections[topIndex]
            var candidates: [Int] = [], rest: [Int] = []
            for index in remaining {
                if detections[index].box.intersectionOverUnion(top.box) > iouThreshold {
                    candidates.append(index)
                } else {
                    rest.append(index)
                }
            }
            var weighted = top
            if !candidates.isEmpty {
                var xmin: Float = 0, ymin: Float = 0, xmax: Float = 0, ymax: Float = 0, total: Float = 0
                var keypoints = [SIMD2<Float>](repeating: .zero, count: top.keypoints.count)
                for index in candidates {
                    let candidate = detections[index], score = candidate.score
                    total += score
                    xmin += candidate.box.xmin * score
                    ymin += candidate.box.ymin * score
                    xmax += (candidate.box.xmin + candidate.box.width) * score
                    ymax += (candidate.box.ymin + candidate.box.height) * score
                    for k in keypoints.indices {
                        keypoints[k].x += candidate.keypoints[k].x * score
                        keypoints[k].y += candidate.keypoints[k].y * score
                    }
                }
                weighted.box.xmin = xmin / total
                weighted.box.ymin = ymin / total
                weighted.box.width = xmax / total - weighted.box.xmin
                weighted.box.height = ymax / total - weighted.box.ymin
                weighted.keypoints = keypoints.map { SIMD2($0.x / total, $0.y / total) }
            }
            output.append(weighted)
            if rest.count == remaining.count { break }
            remaining = rest
        }
        return output
    }
}
