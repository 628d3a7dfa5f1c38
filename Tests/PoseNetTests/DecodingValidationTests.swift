import Detectors
import Testing
import Tensor
@testable import PoseNet
import PoseCore

/// Decoding parameters are checked when a detector's decoding is set, not per frame, and still
/// always before they are used: an invalid set is thrown by the next `detect`.
@Suite struct DecodingValidationTests {
    @Test func checkedDecodingRevalidatesOnlyAfterAChange() throws {
        var checked = CheckedDecoding(PoseDecoding(parameters: MultiPoseParameters(refineSteps: 17)))
        #expect(throws: PoseDecodingError.self) { try checked.validatedParameters() }
        checked.decoding.parameters.refineSteps = 3
        #expect(try checked.validatedParameters().parameters.refineSteps == 3)
        checked.decoding.mode = .single
        checked.decoding.parameters.localMaximumRadius = -1
        #expect(throws: PoseDecodingError.self) { try checked.validatedParameters() }
        checked.decoding = PoseDecoding()
        #expect(try checked.validatedParameters().parameters == MultiPoseParameters())
    }

    @Test func detectorsThrowParametersSetInvalidAfterBuilding() throws {
        let bundle = try WeightBundle(contentsOf: try ModelLocator.resolve("mobilenet050"))
        let model = try PoseNetModel(bundle: bundle, inputSize: 65, outputStride: 16, threads: 1)
        let detector = PoseDetector(model: model, decoding: PoseDecoding(parameters: MultiPoseParameters(refineSteps: -1)))
        #expect(throws: PoseDecodingError.self) { try detector.detect(mappingTo: .identity) }
        detector.decoding.parameters.refineSteps = 2
        _ = try detector.detect(mappingTo: .identity)
        detector.decoding.parameters.minPoseScore = 2
        #expect(throws: PoseDecodingError.self) { try detector.detect(mappingTo: .identity) }

        let multiScale = try MultiScalePoseDetector(models: [model], decoding: PoseDecoding())
        _ = try multiScale.detect(mappingTo: .identity)
        multiScale.decoding.parameters.nmsRadius = -.infinity
        #expect(throws: PoseDecodingError.self) { try multiScale.detect(mappingTo: .identity) }
        multiScale.decoding.parameters.nmsRadius = 20
        _ = try multiScale.detect(mappingTo: .identity)
    }

    /// NaN in the input reaches the heads (ReLU6 does not stop it); the detector throws the
    /// non-finite error of the heads' check instead of decoding them.
    @Test func aNaNInputIsANonFiniteHeadsError() throws {
        let bundle = try WeightBundle(contentsOf: try ModelLocator.resolve("mobilenet050"))
        let detector = PoseDetector(model: try PoseNetModel(bundle: bundle, inputSize: 65, outputStride: 16, threads: 1))
        detector.input.withUnsafeMutableBufferPointer { $0.update(repeating: .nan) }
        do {
            let poses = try detector.detect(mappingTo: .identity)
            Issue.record("NaN input gave \(poses.count) poses and no error")
        } catch let error as PoseDecodingError {
            guard case .nonFiniteValue = error else { Issue.record("\(error)"); return }
        }
    }
}
