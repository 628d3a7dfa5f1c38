import Foundation
import PoseCore
@testable import ActionNet
@testable import ActionTraining

/// Hand-made poses for tests.
enum Fixtures {
    /// A standing person, frontal, hips at (cx, cy), torso length `torso` pixels, all scores `score`.
    static func standingPose(cx: Double = 320, cy: Double = 240, torso: Double = 60, score: Double = 0.9) -> Pose {
        let t = torso
        let offsets: [(Double, Double)] = [
            (0, -1.35), (0.06, -1.42), (-0.06, -1.42), (0.13, -1.38), (-0.13, -1.38),   // face
            (0.35, -1), (-0.35, -1), (0.45, -0.5), (-0.45, -0.5), (0.5, 0), (-0.5, 0),   // arms
            (0.2, 0), (-0.2, 0), (0.2, 0.85), (-0.2, 0.85), (0.2, 1.7), (-0.2, 1.7),      // hips, legs
        ]
        let kps = offsets.enumerated().map { i, o in
            Keypoint(position: Point(x: cx + o.0 * t, y: cy + o.1 * t), score: score)
        }
        return Pose(keypoints: kps, score: score)
    }

    /// A pose whose keypoints are moved by `transform`.
    static func mapped(_ pose: Pose, _ transform: (Point) -> Point) -> Pose {
        Pose(keypoints: pose.keypoints.map { Keypoint(position: transform($0.position), score: $0.score) }, score: pose.score)
    }

    /// A small untrained classifier with the default window length.
    static func randomNet(seed: UInt64 = 5) -> TemporalConvNet {
        var a = TemporalConvNet.Architecture()
        a.channels1 = 8; a.channels2 = 8
        let net = try! TemporalConvNet(architecture: a)
        net.initialize(seed: seed)
        return net
    }

    static func engine(_ net: TemporalConvNet = randomNet(), confidence: Double = 0.5, trackAge: Double? = nil) -> ActionEngine {
        var c = ActionEngineConfiguration()
        c.confidenceThreshold = confidence
        if let trackAge { c.tracking.maximumAge = trackAge }
        return try! ActionEngine(classifier: net, configuration: c)
    }

    /// Runs frames through an engine and returns every event including the summary.
    static func run(_ engine: ActionEngine, _ frames: [PoseFrame]) -> [ActionEvent] {
        var events: [ActionEvent] = []
        // ActionNet labels every window: an engine on it does not throw.
        for f in frames { events += try! engine.process(f) }
        return events + (try! engine.finish())
    }

    static func predictions(_ events: [ActionEvent]) -> [WindowPrediction] {
        events.compactMap { if case .prediction(let p) = $0 { return p } else { return nil } }
    }

    static func summary(_ events: [ActionEvent]) -> ActionSummary? {
        if case .summary(let s)? = events.last { return s }
        return nil
    }
}
