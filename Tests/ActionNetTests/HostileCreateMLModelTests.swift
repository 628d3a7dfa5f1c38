import Foundation
import Testing
import TestSupport
@testable import ActionNet
import CoreMLFormat

/// A small Create ML-style action classifier written field by field, valid as written: input
/// `poses` [4, 3, 18] → expandDims [1, 4, 3, 18] → convolution 4 → 2 channels, kernel 3×18 →
/// batchnorm → ReLU → reshapeStatic [2] → softmaxND: probabilities of labels "a" and "b".
/// Each test changes one field to a hostile value and checks the reader's one-line refusal.
struct CraftedCreateMLModel {
    typealias F = CoreMLField
    var outputChannels: UInt64 = 2
    var kernelChannels: UInt64 = 4
    var groups: UInt64?
    var batchnormChannels: UInt64 = 2
    var convolutionWeights: [Float] = (0..<(2 * 4 * 3 * 18)).map { Float($0 % 7) * 0.01 - 0.03 }
    var variance: [Float] = [1, 0.5]
    var epsilon: Float = 1e-5
    var constantShape: [UInt64]?
    var transposeAxes: [UInt64]?
    var specificationVersion: UInt64 = 4
    var targetFrameRate = "30"
    /// Store the convolution weights as `float16Value` (little-endian halves) instead of `floatValue`.
    var float16Weights = false

    var bytes: [UInt8] {
        var model = ProtobufWriter()
        model.uint(F.specificationVersion, specificationVersion)
        model.message(F.description) { d in
            d.message(F.descriptionInput) { input in
                input.string(F.featureName, "poses")
                input.message(F.featureType) { type in
                    type.message(F.featureTypeMultiArray) { array in
                        array.packedUInts(F.arrayShape, [4, 3, 18])
                        array.uint(F.arrayDataType, F.arrayFloat32)
                    }
                }
            }
            d.message(F.descriptionMetadata) { meta in
                meta.message(F.metadataUserDefined) { entry in
                    entry.string(F.mapKey, "Target Frame Rate")
                    entry.string(F.mapValue, targetFrameRate)
                }
            }
        }
        model.message(F.neuralNetworkClassifier) { net in
            func layer(_ name: String, _ input: String, _ output: String, _ kind: F.Kind, _ params: (inout ProtobufWriter) -> Void) {
                net.message(F.networkLayers) { l in
                    l.string(F.layerName, name)
                    if !input.isEmpty { l.string(F.layerInput, input) }
                    l.string(F.layerOutput, output)
                    l.message(kind.rawValue, params)
                }
            }
            layer("expand", "poses", "e", .expandDims) { $0.packedUInts(F.ndAxis, [0]) }
            layer("conv", "e", "c", .convolution) { p in
                p.uint(F.convOutputChannels, outputChannels)
                p.uint(F.convKernelChannels, kernelChannels)
                if let groups { p.uint(F.convGroups, groups) }
                p.packedUInts(F.convKernelSize, [3, 18])
                p.message(F.convWeights) { w in
                    if float16Weights {
                        w.bytes(F.weightFloat16, convolutionWeights.flatMap { value -> [UInt8] in
                            let bits = Float16(value).bitPattern
                            return [UInt8(bits & 0xff), UInt8(bits >> 8)]
                        })
                    } else {
                        w.packedFloats(F.weightFloat, convolutionWeights)
                    }
                }
            }
            layer("bn", "c", "b", .batchnorm) { p in
                p.uint(F.bnChannels, batchnormChannels)
                p.float(F.bnEpsilon, epsilon)
                p.message(F.bnGamma) { $0.packedFloats(F.weightFloat, [1, 2]) }
                p.message(F.bnBeta) { $0.packedFloats(F.weightFloat, [0.1, -0.1]) }
                p.message(F.bnMean) { $0.packedFloats(F.weightFloat, [0, 0.05]) }
                p.message(F.bnVariance) { $0.packedFloats(F.weightFloat, variance) }
            }
            layer("relu", "b", "r", .activation) { $0.message(F.activationReLU) { _ in } }
            if let constantShape {
                layer("constant", "", "k", .loadConstantND) { p in
                    p.packedUInts(F.constantShape, constantShape)
                    p.message(F.constantData) { $0.packedFloats(F.weightFloat, [1, 2]) }
                }
            }
            if let transposeAxes {
                layer("transpose", "r", "t", .transpose) { $0.packedUInts(F.ndAxis, transposeAxes) }
            }
            layer("flat", "r", "f", .reshapeStatic) { $0.packedUInts(F.ndAxis, [2]) }
            layer("prob", "f", "labelProbability", .softmaxND) { $0.uint(F.ndAxis, UInt64(bitPattern: -1)) }
            net.message(F.stringClassLabels) { labels in
                labels.string(F.stringVector, "a")
                labels.string(F.stringVector, "b")
            }
            net.uint(F.arrayInputShapeMapping, F.exactArrayMapping)
            net.string(F.labelProbabilityLayerName, "labelProbability")
        }
        return model.bytes
    }
}

/// Hostile Create ML models: every integer read from the file is range-checked (a varint of
/// 2^63 trapped in `Int(_:)`, and wrapped to a negative count or an accepted 2^63 groups in an
/// unchecked build), non-finite weights and batchnorm parameters are refused at load, and a
/// window that overflows inside the network is an error, never a label with NaN probabilities.
struct HostileCreateMLModelTests {
    /// The refusal of `model`, as `posekit` prints it (nil: it loaded).
    static func refusal(_ model: CraftedCreateMLModel) -> String? {
        do {
            _ = try CreateMLActionClassifier(bytes: model.bytes, fileName: "crafted.mlmodel")
            return nil
        } catch {
            return error.localizedDescription
        }
    }

    @Test func theCraftedModelIsValid() throws {
        let model = try CreateMLActionClassifier(bytes: CraftedCreateMLModel().bytes, fileName: "crafted.mlmodel")
        #expect(model.labels == ["a", "b"] && model.windowLength == 4 && model.frameRate == 30)
        let prediction = try model.classify((0..<(4 * 54)).map { Float($0 % 11) / 11 })
        #expect(abs(prediction.probabilities.reduce(0, +) - 1) < 1e-5)
    }

    static let huge: [UInt64] = [1 << 63, UInt64.max, 1 << 31, 1 << 32 + 2]

    @Test(arguments: huge + [0])
    func convolutionOutputChannels(_ value: UInt64) {
        var model = CraftedCreateMLModel()
        model.outputChannels = value
        let message = Self.refusal(model)
        #expect(message?.contains("convolution outputChannels \(value) is outside 1...65536") == true, "\(message ?? "loaded")")
    }

    @Test(arguments: huge + [0])
    func convolutionKernelChannels(_ value: UInt64) {
        var model = CraftedCreateMLModel()
        model.kernelChannels = value
        let message = Self.refusal(model)
        #expect(message?.contains("convolution kernelChannels \(value) is outside 1...65536") == true, "\(message ?? "loaded")")
    }

    /// Groups 2^63 wrapped to a negative count, which `max(_, 1)` turned into 1: the model loaded.
    @Test(arguments: huge)
    func convolutionGroups(_ value: UInt64) {
        var model = CraftedCreateMLModel()
        model.groups = value
        let message = Self.refusal(model)
        #expect(message?.contains("convolution nGroups \(value) is outside 0...65536") == true, "\(message ?? "loaded")")
    }

    /// 0 channels with empty parameter lists used to load (a batchnorm of nothing).
    @Test(arguments: huge + [0])
    func batchnormChannels(_ value: UInt64) {
        var model = CraftedCreateMLModel()
        model.batchnormChannels = value
        let message = Self.refusal(model)
        #expect(message?.contains("batchnorm channels \(value) is outside 1...65536") == true, "\(message ?? "loaded")")
    }

    @Test func specificationVersion() {
        var model = CraftedCreateMLModel()
        model.specificationVersion = 1 << 63
        let message = Self.refusal(model)
        #expect(message?.contains("specification version 9223372036854775808") == true, "\(message ?? "loaded")")
    }

    /// Shapes and axes: a size of 2^63 trapped in `Int(_:)`; sizes whose product overflows
    /// trapped in `reduce(1, *)`.
    @Test func constantShapesAndAxes() {
        for shape: [UInt64] in [[1 << 63, 2], [1 << 40, 1 << 40, 1 << 40], [0, 2]] {
            var model = CraftedCreateMLModel()
            model.constantShape = shape
            let message = Self.refusal(model)
            #expect(message?.contains("loadConstantND") == true, "\(shape): \(message ?? "loaded")")
        }
        var model = CraftedCreateMLModel()
        model.transposeAxes = [1 << 63, 0, 1, 2]
        let message = Self.refusal(model)
        #expect(message?.contains("transpose axis 9223372036854775808 is outside 0...7") == true, "\(message ?? "loaded")")
    }

    @Test func nonFiniteWeightsAreRefusedAtLoad() {
        for bad: Float in [.nan, .infinity, -.infinity] {
            var model = CraftedCreateMLModel()
            model.convolutionWeights[17] = bad
            let message = Self.refusal(model)
            #expect(message?.contains("convolution weights hold a value that is not finite") == true, "\(bad): \(message ?? "loaded")")
            #expect(message?.contains("index 17") == true)
        }
    }

    @Test func badBatchnormParametersAreRefusedAtLoad() {
        let cases: [(variance: [Float], epsilon: Float, words: String)] = [
            ([.nan, 1], 1e-5, "not finite"),
            ([1, -0.5], 1e-5, "variance -0.5 of channel 1"),
            ([1, 1], .nan, "epsilon nan"),
            ([1, 1], -1, "epsilon -1.0"),
            ([0, 1], 0, "variance 0.0 of channel 0"),
        ]
        for (variance, epsilon, words) in cases {
            var model = CraftedCreateMLModel()
            (model.variance, model.epsilon) = (variance, epsilon)
            let message = Self.refusal(model)
            #expect(message?.contains(words) == true, "\(variance), \(epsilon): \(message ?? "loaded")")
        }
    }

    /// Finite window values near float32's largest overflow inside the network: an error
    /// naming the window, not a label whose probabilities are all NaN.
    @Test func aWindowThatOverflowsIsAnError() throws {
        var crafted = CraftedCreateMLModel()
        crafted.convolutionWeights = crafted.convolutionWeights.map { _ in 0.5 }
        let model = try CreateMLActionClassifier(bytes: crafted.bytes, fileName: "crafted.mlmodel")
        #expect(throws: CoreMLModelError.self) { try model.classify([Float](repeating: 3e38, count: 4 * 54)) }
        do {
            _ = try model.classify([Float](repeating: 3e38, count: 4 * 54))
        } catch {
            #expect(error.localizedDescription.contains("not finite"), "\(error.localizedDescription)")
        }
    }

    /// A model whose finite weights overflow float32 on real poses (but not on the window of zeros
    /// it is checked on at load) is refused on a stream of poses as on a window: the events stop
    /// with the window's error, where every window used to become `low_confidence` with
    /// probabilities 0 and the run to succeed.
    @Test func aModelThatOverflowsOnRealPosesIsRefusedOnPoses() throws {
        var crafted = CraftedCreateMLModel()
        crafted.convolutionWeights = crafted.convolutionWeights.map { _ in 1e38 }   // finite once batchnorm is folded in (×2.83 at most)
        let url = FileManager.default.temporaryDirectory.appendingPathComponent("overflow-\(UUID().uuidString).mlmodel")
        try Data(crafted.bytes).write(to: url)
        defer { try? FileManager.default.removeItem(at: url) }
        let recognizer = try ActionRecognizer(createMLModel: url, windowStride: 2)
        let frames = Array(try CreateMLWindowTests.poses("jumping_jacks_01").prefix(40))
        do {
            let events = try recognizer.events(for: frames)
            Issue.record("\(events.count) events, the last \(events.last.map { "\($0)" } ?? "none")")
        } catch let error as CoreMLModelError {
            #expect(error.localizedDescription.contains("not finite"), "\(error.localizedDescription)")
        }
    }

    /// A "Target Frame Rate" that is not a rate is one clear error, not a silent 30.
    @Test func anInvalidTargetFrameRateIsRefused() {
        for rate in ["fast", "-30", "nan", "0", "1e9"] {
            var model = CraftedCreateMLModel()
            model.targetFrameRate = rate
            let message = Self.refusal(model)
            #expect(message?.contains("'Target Frame Rate' is '\(rate)', not a frame rate") == true, "\(rate): \(message ?? "loaded")")
        }
        var model = CraftedCreateMLModel()
        model.targetFrameRate = " 15 "
        #expect(Self.refusal(model) == nil)
    }
}

/// A Create ML model cut at every offset, through Core ML's reader and the Create ML family: one
/// line naming the file (a `CoreMLModelError`), never a trap.
struct TruncatedCreateMLModelTests {
    @Test func truncatedAtEveryOffsetIsOneLine() {
        let whole = CraftedCreateMLModel().bytes
        for end in 0..<whole.count {
            do {
                _ = try CreateMLActionClassifier(bytes: Array(whole.prefix(end)), fileName: "cut.mlmodel")
                Issue.record("cut at \(end) of \(whole.count) bytes loaded")
            } catch let error as CoreMLModelError {
                let line = error.localizedDescription
                #expect(line.hasPrefix("cut.mlmodel: ") && !line.contains("\n"), "cut at \(end): \(line)")
            } catch {
                Issue.record("cut at \(end): \(type(of: error)): \(error)")
            }
        }
    }
}

/// Core ML weights are read by one rule for every family (`CoreMLFormat`'s `CoreMLWeights`): a
/// Create ML classifier stored in float16 loads (0.10 refused it: "float32 only", while PoseNet's
/// importer read the same field) and computes exactly what its float32 twin computes.
struct CreateMLFloat16WeightTests {
    @Test func float16WeightsLoadAndMatchTheirFloat32Twin() throws {
        var model = CraftedCreateMLModel()
        model.convolutionWeights = model.convolutionWeights.enumerated().map { Float(Float16(Float($0.offset % 13) * 0.0137 - 0.08)) }
        let float32 = try CreateMLActionClassifier(bytes: model.bytes, fileName: "fp32.mlmodel")
        model.float16Weights = true
        let float16 = try CreateMLActionClassifier(bytes: model.bytes, fileName: "fp16.mlmodel")
        let window = (0..<(4 * 54)).map { Float($0 % 11) / 11 }
        let expected = try float32.classify(window).probabilities
        #expect(try float16.classify(window).probabilities == expected)
        #expect(expected.count == 2 && abs(expected[0] - expected[1]) > 1e-3, "the window tells the labels apart: \(expected)")
    }

    @Test func nonFiniteFloat16WeightsAreRefused() {
        for bad: Float in [.nan, .infinity] {
            var model = CraftedCreateMLModel()
            model.convolutionWeights[17] = bad
            model.float16Weights = true
            let message = HostileCreateMLModelTests.refusal(model)
            #expect(message?.contains("layer 'conv': convolution weights hold a value that is not finite") == true, "\(bad): \(message ?? "loaded")")
            #expect(message?.contains("index 17") == true)
        }
    }
}
