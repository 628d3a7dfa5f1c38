import PoseNet
import PoseCore
import Foundation

/// COCO object keypoint similarity (OKS), the keypoint analogue of box IoU.
///
/// For each labeled keypoint `i` with distance `d_i` between detection and ground truth,
/// `exp(-d_i² / (2 s² κ_i²))`, averaged over the labeled keypoints, where `s²` is the person's
/// annotated area and `κ_i = 2σ_i` with the per-part COCO sigmas below. 1 is a perfect match;
/// at 0.5 a keypoint is off by about its per-part tolerance.
public enum ObjectKeypointSimilarity {
    /// The standard COCO-17 per-keypoint sigmas (pycocotools `kpt_oks_sigmas`), ``BodyPart`` order.
    public static let sigmas: [Double] = [
        0.26, 0.25, 0.25, 0.35, 0.35, 0.79, 0.79, 0.72, 0.72, 0.62, 0.62, 1.07, 1.07, 0.87, 0.87, 0.89, 0.89,
    ].map { $0 / 10.0 }

    /// `np.spacing(1)`, added to the area so that zero-area people do not divide by zero.
    static let areaEpsilon = Double.ulpOfOne

    /// OKS between a detection's 17 keypoints and one ground-truth person, computed as pycocotools'
    /// `computeOks`. A person with no labeled keypoints (an ignore region) is compared against the
    /// box twice the size of its `bbox`: keypoints inside it count as distance 0.
    ///
    /// - Parameter areaScale: multiplies the annotated area used as `s²`. 1 is COCO / pycocotools.
    ///   2 reproduces the more lenient OKS behind the AP figures quoted in `shared/README.md`
    ///   (equivalent to sigmas × √2).
    public static func similarity(detection: [Point], groundTruth: CocoKeypointDataset.Annotation,
                                  areaScale: Double = 1) -> Double {
        let g = groundTruth.keypoints
        let labeled = (0..<BodyPart.count).filter { g[3 * $0 + 2] > 0 }
        let denominator = groundTruth.area * areaScale + areaEpsilon
        var sum = 0.0
        if labeled.isEmpty {
            let b = groundTruth.bbox
            let x0 = b[0] - b[2], x1 = b[0] + b[2] * 2, y0 = b[1] - b[3], y1 = b[1] + b[3] * 2
            for i in 0..<BodyPart.count {
                let p = detection[i]
                let dx = max(0, x0 - p.x) + max(0, p.x - x1), dy = max(0, y0 - p.y) + max(0, p.y - y1)
                sum += Foundation.exp(-((dx * dx + dy * dy) / variance(i) / denominator / 2))
            }
            return sum / Double(BodyPart.count)
        }
        for i in labeled {
            let dx = detection[i].x - g[3 * i], dy = detection[i].y - g[3 * i + 1]
            sum += Foundation.exp(-((dx * dx + dy * dy) / variance(i) / denominator / 2))
        }
        return sum / Double(labeled.count)
    }

    /// `(2σ)²`, in the same operation order as pycocotools so results agree to the last bit.
    @inline(__always) static func variance(_ i: Int) -> Double {
        let k = sigmas[i] * 2
        return k * k
    }
}
