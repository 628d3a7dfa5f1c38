import FrameIO
import PoseCore
import Streaming

/// A frame's people and hands as ``BodyAndHandsModel`` finds them: the poses (tracked and
/// smoothed by the stream on video, as `poses(from:)` gives them) and the hands, each with the person
/// holding it (``holders``).
public struct PosesWithHands: PoseCarrying {
    /// The people, best first, in the frame's pixels.
    public var poses: [Pose]
    /// The hands, in MediaPipe's order. A hand a person holds has that person's side; on video each has
    /// its `Hand/id` and, held, `Hand/person` (the pose's `id`), decided over its track (``HandTracks``).
    public var hands: [Hand]
    /// For each hand, the index in ``poses`` of the person holding it (``HandOwnership``), nil for none.
    public var holders: [Int?]
    /// The hands as found and their owners among the poses as found, for the stream to track.
    var found: FrameHands?

    public init(poses: [Pose], hands: [Hand], holders: [Int?]? = nil) {
        self.poses = poses
        self.hands = hands
        self.holders = holders ?? hands.map { _ in nil }
    }

    /// The frame's people and the hands found with them (`found`'s owners indices into `poses`).
    init(poses: [Pose], found: FrameHands) {
        self.init(poses: poses, hands: HandTracks.sided(found.hands, owners: found.owners), holders: found.owners.map { $0?.person })
        self.found = found
    }

    /// Each person's hands (in ``poses``' order) and the hands no person holds.
    public var handsByPerson: (perPose: [[Hand]], others: [Hand]) {
        var perPose = [[Hand]](repeating: [], count: poses.count), others: [Hand] = []
        for (hand, holder) in zip(hands, holders) {
            if let holder, holder >= 0, holder < poses.count { perPose[holder].append(hand) } else { others.append(hand) }
        }
        return (perPose, others)
    }

    /// The hands' tracks of one stream.
    public static func makeTrackingState() -> HandTracks { HandTracks() }

    /// On video, once the stream has given the people their ids: the hands' ids, people and sides over
    /// their tracks, and each hand's holder among the tracked poses.
    public mutating func posesTracked(from sources: [Int], time: Double, state tracks: inout HandTracks) {
        guard let found else { return }
        var idOfSource: [Int: Int] = [:]
        for (pose, source) in zip(poses, sources) { if let id = pose.id { idOfSource[source] = id } }
        let owners = found.owners.map { owner in owner.flatMap { o in idOfSource[o.person].map { HandOwner(person: $0, side: o.side) } } }
        hands = tracks.update(found.hands, owners: owners, people: Set(poses.compactMap(\.id)), time: time)
        holders = hands.map { hand in hand.person.flatMap { id in poses.firstIndex { $0.id == id } } }
    }
}

/// A body model and a hand detector as one stream model (`posekit pose --hands`): each frame's
/// body model runs once and its poses (as found, before tracking) seed the hand regions
/// (``HandDetector/findHands(in:tracking:bodyPoses:)``), instead of the hand detector running a body
/// model of its own. The hands are tracked from frame to frame, so the frames run in order on one
/// worker (the body model on all its threads), the reader one frame ahead.
///
///     let both = BodyAndHandsModel(body: try PoseDetector(model: .mobilenet075),
///                                  hands: try HandDetector(loadsBodyModel: false))
///     for try await frame in both.frames(from: MediaFrames(path: "clip.mp4")) {
///         let assigned = HandAssignment.assign(frame.output.hands, to: frame.output.poses)
///     }
public final class BodyAndHandsModel: FrameModel {
    public typealias Output = PosesWithHands

    /// The body model (PoseNet, BlazePose).
    public let body: any PoseFrameModel
    /// The hand detector; its body seeds come from ``body``.
    public let hands: HandDetector

    public init(body: any PoseFrameModel, hands: HandDetector) {
        self.body = body
        self.hands = hands
    }

    /// The body model's threads.
    public var threads: Int { body.threads }
    /// Hands are tracked from the previous frame.
    public var frameDependence: FrameDependence { .carriesState }

    /// A worker of the body model on `threads` cores and tracking of the stream's own hands.
    public func makeWorker(threads: Int, smoothing: Bool) throws -> any FrameWorker<PosesWithHands> {
        Worker(body: try body.makeWorker(threads: threads, smoothing: smoothing), hands: hands)
    }

    /// Every frame's people with identities (and smoothing, PoseKit's or the body model's own, as
    /// `poses(from:)` gives them) and its hands, in frame order; the stream's (`outputs(from:)`).
    public func frames<Frames: AsyncSequence & Sendable>(
        from frames: Frames, smoothing: Bool = true, tracking: PoseTracker.Configuration = PoseTracker.Configuration(),
        dropsLateFrames: Bool = false
    ) -> TrackedFrameSequence<Frames, PosesWithHands> where Frames.Element == VideoFrame {
        TrackedFrameSequence(outputs(from: frames, smoothing: smoothing, dropsLateFrames: dropsLateFrames),
                             smoothing: smoothing && !body.smoothsKeypoints, tracking: tracking)
    }

    /// One stream: the body worker, then the hands seeded by its poses. Calls never overlap.
    final class Worker: FrameWorker, @unchecked Sendable {
        private let body: any FrameWorker<[Pose]>
        private let hands: HandDetector
        private var tracking = HandTracking()

        init(body: any FrameWorker<[Pose]>, hands: HandDetector) {
            self.body = body
            self.hands = hands
        }

        func process(_ frame: VideoFrame) throws -> PosesWithHands {
            let poses = try body.process(frame)
            return PosesWithHands(poses: poses, found: try hands.findHands(in: frame, tracking: &tracking, bodyPoses: poses))
        }
    }
}
