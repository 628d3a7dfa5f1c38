import Foundation
import ModelGraph
import Testing
@testable import TFLite

/// The six MediaPipe models import, and what the graphs hold agrees with the op inventory of
/// `../shared/reference/mediapipe/README.md` §3 (made with the `tflite` Python package, independently).
@Suite struct MediaPipeImportTests {
    /// §3's table: ops as stored (with DEQUANTIZE and DENSIFY), total / runtime ops, tensors,
    /// parameters (dense elements), multiply-adds (M, one decimal) and conv / depthwise / FC multiply-adds.
    struct Reference {
        var ops: [String: Int]
        var total: Int, runtime: Int, tensors: Int, parameters: Int
        var macs: Double, conv: Double, depthwise: Double, fullyConnected: Double
    }

    static let reference: [String: Reference] = [
        "pose_detection": .init(ops: ["CONV_2D": 45, "DEPTHWISE_CONV_2D": 28, "ADD": 15, "PAD": 8, "RESIZE_BILINEAR": 2, "RESHAPE": 6,
                                      "CONCATENATION": 2, "DEPTH_TO_SPACE": 3, "DEQUANTIZE": 144, "DENSIFY": 38],
                                total: 291, runtime: 109, tensors: 442, parameters: 2_965_026, macs: 429.9, conv: 393.9, depthwise: 36.0, fullyConnected: 0),
        "pose_landmark_full": .init(ops: ["CONV_2D": 58, "DEPTHWISE_CONV_2D": 38, "ADD": 28, "PAD": 5, "RESIZE_BILINEAR": 5, "RESHAPE": 3,
                                          "MAX_POOL_2D": 2, "LOGISTIC": 1, "DEQUANTIZE": 192],
                                    total: 332, runtime: 140, tensors: 535, parameters: 3_169_489, macs: 386.1, conv: 330.9, depthwise: 55.3, fullyConnected: 0),
        "palm_detection_full": .init(ops: ["CONV_2D": 35, "DEPTHWISE_CONV_2D": 28, "ADD": 30, "PAD": 3, "RESIZE_BILINEAR": 2, "RESHAPE": 4,
                                           "CONCATENATION": 2, "MAX_POOL_2D": 4, "PRELU": 31, "DEQUANTIZE": 133],
                                     total: 272, runtime: 139, tensors: 413, parameters: 1_132_536, macs: 337.3, conv: 272.1, depthwise: 65.2, fullyConnected: 0),
        "palm_detection_lite": .init(ops: ["CONV_2D": 30, "DEPTHWISE_CONV_2D": 23, "ADD": 25, "PAD": 3, "RESIZE_BILINEAR": 2, "RESHAPE": 4,
                                           "CONCATENATION": 2, "MAX_POOL_2D": 4, "PRELU": 26, "DEQUANTIZE": 113],
                                     total: 232, runtime: 119, tensors: 353, parameters: 960_088, macs: 283.2, conv: 232.0, depthwise: 51.1, fullyConnected: 0),
        "hand_landmark_full": .init(ops: ["CONV_2D": 31, "DEPTHWISE_CONV_2D": 16, "ADD": 9, "LOGISTIC": 2, "MEAN": 1, "FULLY_CONNECTED": 4,
                                          "DEQUANTIZE": 102],
                                    total: 165, runtime: 63, tensors: 269, parameters: 2_715_680, macs: 331.0, conv: 298.1, depthwise: 32.7, fullyConnected: 0.15),
        "hand_landmark_lite": .init(ops: ["CONV_2D": 31, "DEPTHWISE_CONV_2D": 16, "ADD": 10, "MAX_POOL_2D": 1, "LOGISTIC": 2, "MEAN": 1,
                                          "FULLY_CONNECTED": 4, "DEQUANTIZE": 102],
                                    total: 167, runtime: 65, tensors: 271, parameters: 1_011_712, macs: 145.6, conv: 123.9, depthwise: 21.6, fullyConnected: 0.09),
    ]

    /// Our graph's operation names for TFLite's runtime ops.
    static let graphName = ["CONV_2D": "conv2D", "DEPTHWISE_CONV_2D": "depthwiseConv2D", "ADD": "add", "PAD": "pad",
                            "RESIZE_BILINEAR": "resizeBilinear", "RESHAPE": "reshape", "CONCATENATION": "concatenation",
                            "DEPTH_TO_SPACE": "depthToSpace", "MAX_POOL_2D": "maxPool2D", "PRELU": "prelu", "LOGISTIC": "logistic",
                            "MEAN": "spatialMean", "FULLY_CONNECTED": "fullyConnected"]

    static func millions(_ n: Int, digits: Double) -> Double { (Double(n) / 1e6 * digits).rounded() / digits }

    @Test(arguments: mediapipeModels)
    func importsWithTheReferenceInventory(_ name: String) throws {
        let imported = try TFLiteImporter.importModel(bytes: mediapipeBytes[name]!, file: mediapipeURL(name).path)
        let ref = try #require(Self.reference[name])
        let model = imported.model, graph = imported.graph

        #expect(model.operatorCounts == ref.ops)
        #expect(model.operators.count == ref.total)
        #expect(model.tensors.count == ref.tensors)
        #expect(graph.nodes.count == ref.runtime)
        let runtimeOps = ref.ops.filter { $0.key != "DEQUANTIZE" && $0.key != "DENSIFY" }
        let expectedGraphOps = Dictionary(uniqueKeysWithValues: runtimeOps.map { (Self.graphName[$0.key]!, $0.value) })
        #expect(Dictionary(uniqueKeysWithValues: graph.operationCounts.map { ($0.name, $0.count) }) == expectedGraphOps)

        #expect(graph.parameterCount == ref.parameters)
        #expect(Self.millions(graph.multiplyAdds, digits: 10) == ref.macs)
        func macs(_ kind: String) -> Int {
            graph.nodes.indices.filter { graph.nodes[$0].operation.name == kind }.reduce(0) { $0 + graph.multiplyAdds(ofNode: $1) }
        }
        #expect(Self.millions(macs("conv2D"), digits: 10) == ref.conv)
        #expect(Self.millions(macs("depthwiseConv2D"), digits: 10) == ref.depthwise)
        #expect(Self.millions(macs("fullyConnected"), digits: 100) == ref.fullyConnected)

        // One input, `input_1`, NHWC with the batch dropped; the outputs in §2's order.
        #expect(graph.inputs.map { graph.values[$0].name } == ["input_1"])
        #expect(graph.outputs.map { graph.values[$0].name } == (0..<graph.outputs.count).map { $0 == 0 ? "Identity" : "Identity_\($0)" })
        try graph.validate()
        #expect(imported.license.spdx == "Apache-2.0")
        #expect(imported.source.format == "tflite")
        #expect(imported.source.fileName == "\(name).tflite")
    }

    @Test func inputAndOutputShapesAreReadmeSection2s() throws {
        let expected: [String: (input: [Int], outputs: [[Int]])] = [
            "pose_detection": ([224, 224, 3], [[2254, 12], [2254, 1]]),
            "pose_landmark_full": ([256, 256, 3], [[195], [1], [256, 256, 1], [64, 64, 39], [117]]),
            "palm_detection_full": ([192, 192, 3], [[2016, 18], [2016, 1]]),
            "palm_detection_lite": ([192, 192, 3], [[2016, 18], [2016, 1]]),
            "hand_landmark_full": ([224, 224, 3], [[63], [1], [1], [63]]),
            "hand_landmark_lite": ([224, 224, 3], [[63], [1], [1], [63]]),
        ]
        for name in mediapipeModels {
            let graph = try #require(mediapipeImports[name]).graph
            #expect(graph.inputs.map { graph.values[$0].shape } == [expected[name]!.input], "\(name)")
            #expect(graph.outputs.map { graph.values[$0].shape } == expected[name]!.outputs, "\(name)")
        }
    }

    /// The sha256 recorded equals PROVENANCE.txt's, so the licence lookup is keyed right.
    @Test func recordsTheProvenanceSHA256() throws {
        let provenance = try String(contentsOf: mediapipeDirectory.appendingPathComponent("PROVENANCE.txt"), encoding: .utf8)
        for name in mediapipeModels {
            let imported = try #require(mediapipeImports[name])
            #expect(provenance.contains("\(imported.source.sha256)  \(name).tflite"), "\(name)")
            #expect(TFLiteImporter.knownModels[imported.source.sha256] == name)
        }
    }
}
