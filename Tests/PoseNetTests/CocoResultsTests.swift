import Foundation
import Testing
@testable import PoseNet
@testable import PoseEvaluation
import PoseCore

struct CocoResultsTests {
    @Test func resultsRoundTripAndNamesGiveImageIDs() throws {
        let pose = gridPerson(x: 10.25, y: 20.5, score: 0.8125)
        let text = CocoResults.encode([(785, pose), (42, gridPerson(x: 1, y: 2))])
        let back = try CocoResults.decode(Data(text.utf8))
        #expect(back.map(\.imageID) == [785, 42])
        #expect(back[0].keypoints == pose.keypoints.map(\.position) && back[0].score == 0.8125)
        #expect(try CocoResults.decode(Data(CocoResults.encode([]).utf8)).isEmpty)
        #expect(throws: EvaluationError.self) { try CocoResults.decode(Data("[{\"image_id\": 1}]".utf8)) }
        #expect(throws: EvaluationError.self) { try CocoResults.decode(Data("{}".utf8)) }
        #expect(CocoResults.imageID(fromFileName: "/a/000000000785.jpg") == 785)
        #expect(CocoResults.imageID(fromFileName: "coco_000000000785.ppm") == 785)
        #expect(CocoResults.imageID(fromFileName: "h36m_S7_Greeting.55011271_000396.ppm") == 396)
        #expect(CocoResults.imageID(fromFileName: "photo.ppm") == nil)
        #expect(CocoResults.imageID(fromFileName: "0000.ppm") == 0)
    }
}
