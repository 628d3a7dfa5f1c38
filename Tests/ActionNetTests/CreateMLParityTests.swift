import Foundation
import Testing
@testable import ActionNet

/// Both Create ML action classifiers against the independent float64 reference: every case's
/// probabilities within 1e-5, and every layer of the first clip case by its checksums.
struct CreateMLParityTests {
    static let tolerance = 1e-5

    @Test(arguments: CreateMLReference.models.map(\.name))
    func everyReferenceCaseMatches(_ name: String) throws {
        let expected = try CreateMLReference.expected(name)
        let model = try CreateMLActionClassifier(contentsOf: CreateMLReference.modelURL(name))
        #expect(model.labels == expected.model.labels)
        #expect(model.inputShape == expected.model.input)
        #expect(model.layerCount == expected.model.layers)
        #expect(model.frameRate == expected.model.frame_rate)
        #expect(expected.cases.count >= 12, "reference cases missing")
        var worst = 0.0
        for testCase in expected.cases {
            let window = try CreateMLReference.window(name, testCase.file)
            let prediction = try model.classify(window)
            let error = zip(expected.model.labels, prediction.probabilities).map { abs(Double($1) - testCase.probabilities[$0]!) }.max()!
            worst = max(worst, error)
            #expect(prediction.label == testCase.top, "\(name) \(testCase.file)")
            if error > Self.tolerance {
                let where_ = try CreateMLReference.firstWrongLayer(model, window, expected.layer_checksums.layers)
                Issue.record("\(name) \(testCase.file): max probability error \(error) > \(Self.tolerance); first wrong layer: \(where_ ?? "none by the checksums (of \(expected.layer_checksums.case))")")
            }
        }
        print("CreateML parity \(name): \(expected.cases.count) cases, max abs probability error \(worst)")
    }

    /// Every layer output of the checksum case agrees in shape, sum, absolute sum and first element.
    @Test(arguments: CreateMLReference.models.map(\.name))
    func everyLayerMatchesItsChecksum(_ name: String) throws {
        let expected = try CreateMLReference.expected(name)
        let model = try CreateMLActionClassifier(contentsOf: CreateMLReference.modelURL(name))
        let window = try CreateMLReference.window(name, expected.layer_checksums.case)
        let wrong = try CreateMLReference.firstWrongLayer(model, window, expected.layer_checksums.layers)
        #expect(wrong == nil, "\(name): \(wrong ?? "")")
    }
}
