import PoseCore

/// Hands that are not hands: a fold of a sleeve, a pattern on a shirt, a speck at a wrist (docs/hands.md,
/// "No hands on clothing"). Chosen on `media/images`, reported on `images-val` and `media/hands`
/// (`scripts/false-hand-choose.py`).
///
/// - A hand a person holds (``HandOwnership``) must have a hand's size for that person: the longest side of
///   its palm (``/PoseCore/HandGestureProcessor/handSize(of:)``) between ``ownedSize`` forearm lengths (the hands held on
///   `media/images` measure 0.18–0.43).
/// - A hand no person holds that lies on a person (its wrist inside the box of the keypoints scoring at least
///   ``keypointScore`` of a pose scoring at least ``minimumPoseScore``, widened by ``personMargin`` of the box's
///   longer side) is a hand on their clothing, unless the hand model's flag reaches ``trustedPresence`` (the
///   median flag of the hands held on `media/images`, 0.91, rounded down): a real hand held there has an arm
///   the body model sees, and the palm detector's false hands on clothing are what MediaPipe's own
///   threshold (0.5) lets through.
/// - A hand on no person is kept as MediaPipe keeps it (a hand without a body in view), unless its palm is
///   under ``minimumPalm`` pixels (a speck: nothing can be read in it).
public struct FalseHandRule: Sendable, Equatable {
    /// Palm size over the owner's forearm that a held hand may have.
    public var ownedSize: ClosedRange<Double> = 0.15...1.0
    /// A hand on a person without a wrist holding it is kept only with this flag.
    public var trustedPresence = 0.9
    /// Keypoints scoring this much make a person's box…
    public var keypointScore = 0.3
    /// …of a pose scoring at least this (PoseKit's tracker's confident pose: fainter ones are often no person).
    public var minimumPoseScore = 0.2
    /// The person's box widened by this fraction of its longer side on each side.
    public var personMargin = 0.0
    /// A palm (its longest side) shorter than this many pixels is no hand.
    public var minimumPalm = 2.0
    /// false: every hand is kept (MediaPipe's behaviour).
    public var isEnabled = true

    public init() {}

    /// Whether `hand`, held by `owner` among `poses` (the frame's people as found; `owner.person` an index
    /// into them), is a false hand.
    public func isFalse(_ hand: Hand, owner: HandOwner?, poses: [Pose], ownership: HandOwnership = HandOwnership(),
                        mirrored: Bool = false) -> Bool {
        guard isEnabled else { return false }
        guard let size = HandGestureProcessor.handSize(of: hand.pose), size >= minimumPalm else { return true }
        if let owner {
            guard owner.person >= 0, owner.person < poses.count,
                  let forearm = forearm(of: poses[owner.person], side: mirrored ? owner.side.opposite : owner.side) else { return false }
            return !ownedSize.contains(size / forearm)
        }
        guard hand.score < trustedPresence else { return false }
        let wrist = hand.wrist.position
        return poses.contains { pose in
            guard let box = box(of: pose) else { return false }
            return wrist.x >= box.minX && wrist.x <= box.maxX && wrist.y >= box.minY && wrist.y <= box.maxY
        }
    }

    /// The person's forearm on `side` (the body model's own label) in pixels, nil when not measurable.
    func forearm(of pose: Pose, side: HandChirality) -> Double? {
        guard let wrist = pose.keypoint(named: side.rawValue + "Wrist"), let elbow = pose.keypoint(named: side.rawValue + "Elbow") else { return nil }
        let length = wrist.position.squaredDistance(to: elbow.position).squareRoot()
        return length.isFinite && length > 0 ? length : nil
    }

    /// The box of the pose's keypoints scoring at least ``keypointScore`` (BlazePose: visibility), widened
    /// by ``personMargin``; nil with fewer than 3 such keypoints.
    func box(of pose: Pose) -> BoundingBox? {
        guard pose.score >= minimumPoseScore else { return nil }
        let points = pose.keypoints.filter { HandOwnership.confidence($0) >= keypointScore }.map(\.position)
        guard points.count >= 3 else { return nil }
        var box = BoundingBox(minX: points.map(\.x).min()!, minY: points.map(\.y).min()!, maxX: points.map(\.x).max()!,
                              maxY: points.map(\.y).max()!)
        let margin = personMargin * max(box.width, box.height)
        box.minX -= margin; box.minY -= margin; box.maxX += margin; box.maxY += margin
        return box
    }
}
