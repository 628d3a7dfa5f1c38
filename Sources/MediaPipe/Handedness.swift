/// Which hand a hand-landmark crop shows, as MediaPipe labels it: `Left` with the model's
/// probability p, `Right` with 1 − p, the top one kept (`TensorsToClassificationCalculator`,
/// binary, top-1, labels from `handedness.txt`).
///
/// MediaPipe's labels assume a mirrored (selfie) image: on an unmirrored photo "Left" is the
/// person's right hand. `label` keeps MediaPipe's label; `isPersonsRightHand(mirrored:)` says
/// which hand of the person it is.
public struct Handedness: Sendable, Equatable {
    public enum Label: String, Sendable { case left = "Left", right = "Right" }
    public var label: Label
    /// The probability of `label`.
    public var score: Float
    /// MediaPipe's class index (0 = Left, 1 = Right).
    public var index: Int { label == .left ? 0 : 1 }

    public init(label: Label, score: Float) {
        self.label = label
        self.score = score
    }

    /// From the model's probability of "Left" (`Identity_2`, already a sigmoid in the model).
    public init(leftProbability p: Float) {
        let right = 1 - p
        // Top-1 of [Left: p, Right: 1 − p]; on a tie the first class (Left) stays first.
        if right > p {
            self.init(label: .right, score: right)
        } else {
            self.init(label: .left, score: p)
        }
    }

    /// True when the hand is the person's own right hand, given whether the image is mirrored.
    public func isPersonsRightHand(mirrored: Bool) -> Bool { (label == .right) == mirrored }
}
