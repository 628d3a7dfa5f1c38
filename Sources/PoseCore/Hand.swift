/// Which of a person's two hands a hand is: their own left or right (Vision's `VNChirality`).
public enum HandChirality: String, Sendable, Codable, CaseIterable {
    case left, right

    /// The other hand.
    public var opposite: HandChirality { self == .left ? .right : .left }
}

/// One hand: 21 points (``KeypointSet/hand21``: Vision's names in MediaPipe's order, `wrist`,
/// `thumbCMC`, …, `littleTip`) and which of the person's hands it is.
///
/// ``pose`` holds the points in image pixels, each with ``Keypoint/z`` (depth relative to the
/// wrist, in pixels of x, smaller is nearer the camera), their ``Pose/world`` position in metres,
/// the hand's score (the hand model's presence, a probability) and, on video, its ``Pose/id``.
/// MediaPipe's hand model gives no confidence per point: each keypoint's ``Keypoint/score`` is
/// the hand's.
///
///     for hand in hands where hand.handedness == .right {
///         let tip = hand.pose.keypoint(named: "indexTip")!
///         print(hand.id ?? 0, tip.position, tip.z ?? 0)
///     }
public struct Hand: Equatable, Sendable {
    /// The 21 points (``KeypointSet/hand21``), score, world points and id.
    public var pose: Pose
    /// The person's own hand in the image as given (not MediaPipe's label, which assumes a
    /// mirrored selfie image).
    public var handedness: HandChirality
    /// The hand model's probability that the hand is ``handedness``, in 0...1: on an image the model's
    /// own score of its label (0.5...1), or of the person's side where a person holds the hand (under 0.5
    /// when the body and the hand model disagree); on video its mean over the hand's track.
    public var handednessScore: Double
    /// On video, the ``Pose/id`` of the person holding the hand (their wrist and forearm lead to it); nil
    /// for a hand no person holds, and on still images.
    public var person: Int?

    public init(pose: Pose, handedness: HandChirality, handednessScore: Double, person: Int? = nil) {
        precondition(pose.keypointSet == KeypointSet.hand21, "a hand is a hand21 pose, got \(pose.keypointSet.identifier)")
        self.pose = pose
        self.handedness = handedness
        self.handednessScore = handednessScore
        self.person = person
    }

    /// The hand's identity on video (1, 2, 3, ... in order of first appearance, kept while the
    /// hand is tracked); nil for still images.
    public var id: Int? {
        get { pose.id }
        set { pose.id = newValue }
    }

    /// The hand model's presence score, a probability.
    public var score: Double { pose.score }

    /// The wrist (keypoint 0), where a hand meets its arm.
    public var wrist: Keypoint { pose.keypoints[0] }
}
