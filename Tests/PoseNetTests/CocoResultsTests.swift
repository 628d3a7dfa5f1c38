import Foundation
import Testing
@testable import PoseNet
@testable import PoseEvaluation
import PoseCore

struct CocoResultsTests {
    @Test func resultsRoundTripAndNamesGiveImageIDs() throws {
        let pose = gridPerson(x: 10.25, y: 20.5, score: 0.8125)
        let text = CocoResults.encode([(785, pose), (42, gridPerson(x: 1, y: 2))])
        // PoseKit's one number rule (JSONText): 2 decimals for pixels, 4 for scores, no trailing zeros.
        #expect(text.hasPrefix("[\n{\"image_id\": 785, \"category_id\": 1, \"score\": 0.8125, \"keypoints\": "
                               + "[10.25, 20.5, 0.8125, 40.25, 20.5, 0.8125, 70.25, 20.5, 0.8125, 10.25, 44.5, 0.8125, "))
        #expect(text.contains(",\n{\"image_id\": 42, \"category_id\": 1, \"score\": 0.9, \"keypoints\": [1, 2, 0.9, 31, 2, 0.9, "))
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
