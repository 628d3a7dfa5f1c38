import Foundation
import Testing
import PoseCore

/// The pinch path's strokes and its bound, and the gesture line read back by Foundation's parser.
@Suite struct PinchPathTests {
    typealias Update = HandGestureProcessor.Update

    static func update(_ points: [Point], ended: Bool = false, state: HandGestureProcessor.State = .pinched) -> Update {
        Update(state: state, previousState: .possiblePinch, tips: nil, distance: 0.2, pathPoints: points, strokeEnded: ended)
    }

    @Test func strokesOpenWithPointsAndEndWhenTheHandOpens() {
        var path = PinchPath()
        path.append(Self.update([Point(x: 1, y: 1), Point(x: 2, y: 2)]))
        path.append(Self.update([Point(x: 3, y: 3)]))
        path.append(Self.update([], ended: true, state: .apart))
        path.append(Self.update([Point(x: 9, y: 9)]))
        #expect(path.strokes == [[Point(x: 1, y: 1), Point(x: 2, y: 2), Point(x: 3, y: 3)], [Point(x: 9, y: 9)]])
        #expect(path.drawing)
        path.clear()
        #expect(path.strokes.isEmpty && !path.drawing)
    }

    @Test func memoryIsBoundedOnEndlessStreams() {
        var path = PinchPath(maximumPoints: 100)
        for i in 0..<1000 {
            path.append(Self.update([Point(x: Double(i), y: 0)], ended: i % 7 == 6))
            #expect(path.strokes.reduce(0) { $0 + $1.count } <= 100)
        }
        // The most recent point is kept, the oldest dropped.
        #expect(path.strokes.last?.last == Point(x: 999, y: 0))
        #expect(path.strokes.first?.first.map { $0.x >= 900 } == true)
    }

    @Test func gestureLineReadsBack() throws {
        var json = JSONText()
        HandGestureJSON.write(Self.update([Point(x: 312.456, y: 200.1)], ended: false), source: "clip \"a\".mp4", frame: 41,
                              time: 1.3666, hand: 2, to: &json)
        let text = json.text
        #expect(text.hasSuffix("}\n") && text.filter { $0 == "\n" }.count == 1)
        let object = try #require(try JSONSerialization.jsonObject(with: Data(text.utf8)) as? [String: Any])
        #expect(object["type"] as? String == "gesture" && object["gesture"] as? String == "pinch")
        #expect(object["source"] as? String == "clip \"a\".mp4")
        #expect(object["frame"] as? Int == 41 && object["hand"] as? Int == 2)
        #expect(object["time"] as? Double == 1.367)
        #expect(object["state"] as? String == "pinched" && object["previous"] as? String == "possiblePinch")
        #expect(object["distance"] as? Double == 0.2)
        #expect((object["path"] as? [[Double]]) == [[312.46, 200.1]])
        #expect(object["stroke_end"] as? Bool == false)
        #expect(HandGestureJSON.isEvent(Self.update([])))   // the state changed
    }

    /// The path follows `--coordinates` as the frame line's keypoints do (issue #36: it was in pixels
    /// whatever was asked): hand-computed for a 640×480 frame.
    @Test func gesturePathFollowsTheCoordinates() throws {
        let update = Self.update([Point(x: 320, y: 120), Point(x: 64, y: 480)], ended: false)
        func path(_ coordinates: KeypointCoordinates, width: Int = 640, height: Int = 480) throws -> ([[Double]]?, String?) {
            var json = JSONText()
            HandGestureJSON.write(update, source: "a.ppm", frame: 0, time: nil, hand: 1, coordinates: coordinates,
                                  width: width, height: height, to: &json)
            let object = try #require(try JSONSerialization.jsonObject(with: Data(json.text.utf8)) as? [String: Any])
            return (object["path"] as? [[Double]], object["coordinates"] as? String)
        }
        #expect(try path(.pixels) == ([[320, 120], [64, 480]], nil))
        #expect(try path(.normalized) == ([[0.5, 0.25], [0.1, 1]], "normalized"))
        #expect(try path(.vision) == ([[0.5, 0.75], [0.1, 0]], "vision"))
        // A frame of no size stays in pixels and says nothing else, as its frame line does.
        #expect(try path(.normalized, width: 0, height: 0) == ([[320, 120], [64, 480]], nil))
    }
}
