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
}
