/// MediaPipe's `AssociationNormRectCalculator` (hands: `min_similarity_threshold` 0.5): merges
/// lists of regions in order; each new region removes the regions already kept whose axis-aligned
/// IoU with it (rotation ignored) exceeds the threshold. With the palm regions first and the
/// tracked regions last, a tracked hand replaces a palm detection of the same hand.
public enum AssociationNormRect {
    public static func associate(_ lists: [[NormalizedRect]], minimumSimilarity: Float = 0.5) -> [NormalizedRect] {
        var kept: [NormalizedRect] = []
        for rect in lists.joined() {
            let box = rect.axisAlignedBox
            kept.removeAll { $0.axisAlignedBox.intersectionOverUnion(box) > minimumSimilarity }
            kept.append(rect)
        }
        return kept
    }
}
