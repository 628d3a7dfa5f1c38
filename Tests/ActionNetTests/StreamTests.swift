import Foundation
import Testing
import PoseCore
@testable import ActionNet
@testable import ActionTraining

/// `posekit pose` JSON Lines input, event encoding, and awkward streams.
struct StreamTests {
    func line(frame: Int, time: Double? = nil, poses: [Pose]) -> String {
        let ps = poses.map { p in
            let kps = zip(p.keypointSet.names, p.keypoints).map { "{\"part\": \"\($0)\", \"x\": \($1.position.x), \"y\": \($1.position.y), \"score\": \($1.score)}" }
            return "{\"score\": \(p.score), \"box\": [0, 0, 1, 1], \"keypoints\": [\(kps.joined(separator: ", "))]}"
        }
        let t = time.map { ", \"time\": \($0)" } ?? ""
        return "{\"source\": \"x\", \"frame\": \(frame), \"width\": 640, \"height\": 480\(t), \"poses\": [\(ps.joined(separator: ", "))]}"
    }

    @Test func decodesThePoseFormat() throws {
        let pose = Fixtures.standingPose(cx: 200, cy: 250, torso: 40, score: 0.75)
        let text = line(frame: 7, time: 0.25, poses: [pose]) + "\n\n" + line(frame: 8, poses: [])
        let frames = try PoseJSONLinesDecoder.decodeAll(text)
        #expect(frames.count == 2)
        #expect(frames[0].frame == 7 && frames[0].time == 0.25 && frames[0].width == 640)
        #expect(frames[0].poses == [pose])
        #expect(frames[1].time == 8.0 / 30)   // no "time": frame / 30
        #expect(frames[1].poses.isEmpty)
    }

    @Test(arguments: [
        ("{\"frame\": 0, \"poses\": [", "poses line 2: not valid JSON"),
        ("[1, 2]", "poses line 2: expected a JSON object"),
        ("{\"frame\": 1}", "poses line 2: missing \"poses\""),
        ("{\"frame\": -3, \"poses\": []}", "poses line 2: \"frame\" must be a non-negative integer"),
        ("{\"frame\": 1, \"time\": \"soon\", \"poses\": []}", "poses line 2: \"time\" of frame 1 must be a finite number"),
        ("{\"frame\": 1, \"poses\": [{\"keypoints\": [{\"part\": \"nose\", \"x\": 1, \"y\": 2, \"score\": 0.5}]}]}",
         "poses line 2: pose 0 lacks 16 of 17 keypoints (first: leftEye)"),
        ("{\"frame\": 1, \"poses\": [{\"keypoints\": [{\"part\": \"tail\", \"x\": 1, \"y\": 2, \"score\": 0.5}]}]}",
         "poses line 2: pose 0: unknown part \"tail\""),
        ("{\"frame\": 1, \"poses\": [{\"keypoints\": [{\"part\": \"nose\", \"x\": true, \"y\": 2, \"score\": 0.5}]}]}",
         "poses line 2: pose 0: nose needs finite numeric \"x\" and \"y\""),
        ("{\"frame\": 1, \"poses\": [{\"keypoints\": [{\"part\": \"nose\", \"x\": 1e300, \"y\": 2, \"score\": 0.5}]}]}",
         "poses line 2: pose 0: nose lies more than 1e7 pixels away"),
    ])
    func malformedInputIsAOneLineError(bad: String, message: String) {
        let text = line(frame: 0, poses: [Fixtures.standingPose()]) + "\n" + bad
        #expect(throws: PoseDataError.self) { try PoseJSONLinesDecoder.decodeAll(text) }
        do { _ = try PoseJSONLinesDecoder.decodeAll(text) } catch let e as PoseDataError {
            #expect(e.description == message)
            #expect(!e.description.contains("\n"))
        } catch { Issue.record("unexpected error \(error)") }
    }

    /// A rejected turning point's line: its rule, reading and threshold (degrees as whole
    /// numbers, the burpee's hip drop as a proportion), then its cue.
    @Test func rejectedRepetitionLineHasTheDocumentedShape() {
        let walk = ActionEvent.rejectedRepetition(RejectedRepetition(
            action: .squats, label: "squats", frame: 301, time: 10.0333, rule: "knees_bent", reading: 27.6, threshold: 60,
            cue: .depth(depth: 0.3, kneeAngle: 161, hipsBelowKnees: false)))
        #expect(walk.jsonLine == "{\"type\": \"rejected_rep\", \"label\": \"squats\", \"frame\": 301, \"time\": 10.033, "
                + "\"rule\": \"knees_bent\", \"reading\": 28, \"threshold\": 60, \"depth\": 0.3, \"knee_angle\": 161, \"hips_below_knees\": false}")
        let bow = ActionEvent.rejectedRepetition(RejectedRepetition(
            action: .burpees, label: "Burpees", frame: 5, time: 0.1667, rule: "hips_down", reading: 0.123, threshold: 0.4,
            cue: .burpee(chestHeight: nil, chestToFloor: nil, jumpHeight: 0.2)))
        #expect(bow.jsonLine.contains("\"label\": \"Burpees\"") && bow.jsonLine.contains("\"reading\": 0.12, \"threshold\": 0.4"), "\(bow.jsonLine)")
    }

    @Test func eventLinesHaveTheDocumentedShape() throws {
        let rep = ActionEvent.repetition(RepetitionEvent(action: .squats, count: 3, frame: 120, time: 4.0,
                                                         cue: .depth(depth: 0.5, kneeAngle: 80, hipsBelowKnees: false)))
        #expect(rep.jsonLine == "{\"type\": \"rep\", \"label\": \"squats\", \"count\": 3, \"frame\": 120, \"time\": 4, "
                + "\"depth\": 0.5, \"knee_angle\": 80, \"hips_below_knees\": false}")
        let p = ActionEvent.prediction(WindowPrediction(frameStart: 0, frameEnd: 59, timeStart: 0, timeEnd: 1.9667, label: .action(.lunges),
                                                        confidence: 0.91234, probabilities: [0.01, 0.91234, 0.02, 0.03, 0.02766],
                                                        trackID: 2, topClass: .lunges))
        #expect(p.jsonLine == "{\"type\": \"prediction\", \"frame_start\": 0, \"frame_end\": 59, \"time_start\": 0, \"time_end\": 1.967, "
                + "\"label\": \"lunges\", \"confidence\": 0.9123, \"probabilities\": {\"jumping_jacks\": 0.01, \"lunges\": 0.9123, "
                + "\"burpees\": 0.02, \"squats\": 0.03, \"other\": 0.0277}, \"track\": 2}")
        let s = ActionEvent.summary(ActionSummary(frames: 300, label: .action(.squats), seconds: [.action(.squats): 8.4, .noPerson: 1.6],
                                                  reps: [.squats: 3]))
        #expect(s.jsonLine == "{\"type\": \"summary\", \"frames\": 300, \"label\": \"squats\", \"seconds\": {\"squats\": 8.4, \"no_person\": 1.6}, "
                + "\"reps\": {\"jumping_jacks\": 0, \"lunges\": 0, \"burpees\": 0, \"squats\": 3}, "
                + "\"rejected_reps\": {\"jumping_jacks\": 0, \"lunges\": 0, \"burpees\": 0, \"squats\": 0}}")
        for e in [rep, p, s] { #expect(try JSONSerialization.jsonObject(with: Data(e.jsonLine.utf8)) is [String: Any]) }
        // Seconds have 3 decimals wherever they are (the summary's too), and the bytes path writes
        // the same text as jsonLine.
        let t = ActionEvent.summary(ActionSummary(frames: 61, label: nil, seconds: [.noPerson: 2.0333], reps: [:]))
        #expect(t.jsonLine.contains("\"seconds\": {\"no_person\": 2.033}"))
        var bytes = JSONText()
        for e in [rep, p, s, t] { e.append(to: &bytes); bytes.newline() }
        #expect(bytes.bytes == Array([rep, p, s, t].map { $0.jsonLine + "\n" }.joined().utf8))
    }

    func frames(_ n: Int, rate: Double = 30, _ poses: (Int) -> [Pose]) -> [PoseFrame] {
        (0..<n).map { PoseFrame(frame: $0, time: Double($0) / rate, poses: poses($0)) }
    }

    @Test func emptyStreamAndNoPersonStreams() {
        let empty = Fixtures.run(Fixtures.engine(), [])
        #expect(empty.count == 1)
        #expect(Fixtures.summary(empty)?.frames == 0 && Fixtures.summary(empty)?.label == nil)
        let nobody = Fixtures.run(Fixtures.engine(), frames(200) { _ in [] })
        #expect(Fixtures.predictions(nobody).allSatisfy { $0.label == .noPerson && $0.trackID == nil })
        #expect(Fixtures.summary(nobody)?.label == .noPerson)
    }

    @Test func severalPeopleFollowTheLargest() throws {
        // Three people; the largest (x = 400) is neither first in the list nor the first to appear:
        // the small one (x = 100) is alone for the first 10 frames, the largest joins at frame 10,
        // the smallest (x = 600) at frame 20. The engine must switch to the largest and stay there.
        let small = Fixtures.standingPose(cx: 100, torso: 30)
        let largest = Fixtures.standingPose(cx: 400, torso: 70)
        let smallest = Fixtures.standingPose(cx: 600, torso: 20)
        let input = frames(120) { i in [small] + (i >= 20 ? [smallest] : []) + (i >= 10 ? [largest] : []) }
        let engine = Fixtures.engine(confidence: 0)
        var events: [ActionEvent] = []
        var followedX: [Double?] = []
        var followedTrack: [Int?] = []
        for frame in input {
            events += try engine.process(frame)
            followedX.append(engine.status.pose?[.nose].position.x)
            followedTrack.append(engine.status.trackID)
        }
        events += try engine.finish()
        // Before the largest person appears, the only person is followed.
        #expect(followedX[0..<10].allSatisfy { $0 == small[.nose].position.x })
        // The selector switches after 0.5 s (15 frames) of a clearly larger person; from then on the
        // followed pose is the largest person's, under one track.
        #expect(followedX[30...].allSatisfy { $0 == largest[.nose].position.x }, "followed x: \(followedX)")
        let largestTrack = followedTrack[119]
        #expect(largestTrack != nil && followedTrack[30...].allSatisfy { $0 == largestTrack })
        #expect(largestTrack != followedTrack[0])
        // Windows name the followed track: every window that starts after the switch is the largest person's.
        let preds = Fixtures.predictions(events)
        #expect(!preds.isEmpty)
        #expect(preds.contains { $0.frameStart >= 30 })
        #expect(preds.filter { $0.frameStart >= 30 }.allSatisfy { $0.trackID == largestTrack })
        #expect(preds.allSatisfy { $0.label != .noPerson })
    }

    @Test func suddenCutsAndVariableFrameRates() {
        // A cut every 50 frames moves the person; times jitter between 20 and 40 fps; one stall of 3 s.
        var rng = SeededRandom(seed: 8)
        var t = 0.0
        var input: [PoseFrame] = []
        for i in 0..<400 {
            t += i == 200 ? 3 : rng.uniform(0.025...0.05)
            input.append(PoseFrame(frame: i, time: t, poses: [Fixtures.standingPose(cx: (i / 50) % 2 == 0 ? 150 : 500)]))
        }
        let events = Fixtures.run(Fixtures.engine(confidence: 0), input)
        let preds = Fixtures.predictions(events)
        #expect(preds.count > 10)
        #expect(zip(preds, preds.dropFirst()).allSatisfy { $0.timeStart < $1.timeStart && $0.frameEnd <= $1.frameEnd })
        #expect(preds.contains { $0.label == .noPerson })     // the stall
        #expect(Set(preds.compactMap(\.trackID)).count > 1)   // cuts start new tracks
        #expect(Fixtures.summary(events)?.frames == 400)
    }

    @Test func aHugeTimeGapStaysBounded() {
        let input = [PoseFrame(frame: 0, time: 0, poses: [Fixtures.standingPose()]),
                     PoseFrame(frame: 1, time: 1e7, poses: [Fixtures.standingPose()])]
        let events = Fixtures.run(Fixtures.engine(), input)
        #expect(events.count < 100)
    }

    @Test func legacyWeightFileRoundTripsAndRejectsDamage() throws {
        let net = Fixtures.randomNet(seed: 21)
        let data = try ActionWeightsFile.encodeLegacy(net, fps: 30, windowStride: 10, training: ["seed": "1"])
        let (back, header) = try ActionWeightsFile.decodeLegacy(data)
        #expect(back.parameterValues == net.parameterValues)
        #expect(header.architecture == net.architecture && header.windowStride == 10 && header.training["seed"] == "1")
        #expect(throws: ActionNetError.self) { try ActionWeightsFile.decodeLegacy(data.dropLast(4)) }
        var bad = data; bad[0] = 0x41
        #expect(throws: ActionNetError.self) { try ActionWeightsFile.decodeLegacy(bad) }
        #expect(throws: ActionNetError.self) { try ActionWeightsFile.decodeLegacy(Data()) }
    }
}
