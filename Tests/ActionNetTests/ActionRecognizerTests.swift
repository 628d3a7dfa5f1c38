import PoseCore
import Foundation
import PoseNet
import Testing
@testable import ActionNet

/// `ActionRecognizer` against the engine `posekit actions` runs and against the classifier
/// called directly; its async stream against its synchronous call.
struct ActionRecognizerTests {
    /// Three squats as a client's own pose frames (synthetic, 30 frames/s, starting at 0 s).
    static let frames: [PoseFrame] = SyntheticExercise.standard(.squats).frames(reps: 3).map {
        PoseFrame(frame: $0.slot, time: Double($0.slot) / 30, width: 640, height: 480, poses: $0.pose.map { [$0] } ?? [])
    }

    static func weightsURL() throws -> URL { try ModelLocator.resolve(ActionRecognizer.defaultWeights) }

    @Test func eventsEqualTheCommandsEngine() throws {
        let recognizer = try ActionRecognizer()
        let events = try recognizer.events(for: Self.frames)
        let engine = try ActionEngine(weightsURL: try Self.weightsURL())
        #expect(events == Fixtures.run(engine, Self.frames))
        guard case .summary(let summary)? = events.last else {
            Issue.record("the last event is not the summary")
            return
        }
        #expect(summary.frames == Self.frames.count)
        #expect(events.contains { if case .prediction = $0 { return true } else { return false } })
    }

    @Test func theAsyncStreamEqualsTheSyncCall() async throws {
        let recognizer = try ActionRecognizer(windowStride: 5)
        let expected = try recognizer.events(for: Self.frames)
        let source = AsyncStream<PoseFrame> { continuation in
            for frame in Self.frames { continuation.yield(frame) }
            continuation.finish()
        }
        var events: [ActionEvent] = []
        for try await event in recognizer.events(from: source) { events.append(event) }
        #expect(events == expected)

        // Frames as the detector delivers them (with identities) give the same as without.
        let detected = AsyncStream<PoseFrame> { continuation in
            for frame in Self.frames {
                continuation.yield(PoseFrame(frame: frame.frame, time: frame.time, width: 640, height: 480,
                                             poses: frame.poses.map { var pose = $0; pose.id = 1; return pose }))
            }
            continuation.finish()
        }
        var fromDetected: [ActionEvent] = []
        for try await event in recognizer.events(from: detected) { fromDetected.append(event) }
        #expect(fromDetected == expected)
    }

    /// A window made by the client is labeled as the classifier, called directly, labels it.
    @Test func classifiesTheClientsOwnWindow() throws {
        let recognizer = try ActionRecognizer()
        let poses = Self.frames.prefix(recognizer.windowLength).map { $0.poses.first }
        let window = PoseWindow(frames: poses.enumerated().map { i, pose in
            ResampledFrame(slot: i, time: Double(i) / 30, sourceFrame: 100 + i, pose: pose)
        })
        let prediction = try recognizer.classify(window)

        let (net, _) = try ActionWeightsFile.load(contentsOf: try Self.weightsURL())
        let probabilities = net.probabilities(features: window.features())
        let top = probabilities.indices.max { probabilities[$0] < probabilities[$1] }!
        #expect(prediction.probabilities == probabilities)
        #expect(prediction.topClass == ActionClass(rawValue: top))
        #expect(prediction.label == (probabilities[top] >= 0.5 ? .action(ActionClass(rawValue: top)!) : .lowConfidence))
        #expect(prediction.frameStart == 100 && prediction.frameEnd == 100 + recognizer.windowLength - 1)

        let empty = PoseWindow(frames: (0..<recognizer.windowLength).map { ResampledFrame(slot: $0, time: Double($0) / 30, sourceFrame: $0, pose: nil) })
        #expect(try recognizer.classify(empty).label == .noPerson)
        #expect(throws: ActionNetError.self) { try recognizer.classify(PoseWindow(frames: Array(window.frames.prefix(10)))) }
    }
}
