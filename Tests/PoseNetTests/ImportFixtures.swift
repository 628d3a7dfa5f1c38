import Tensor
import Foundation
@testable import PoseNet
@testable import PoseNetImport
import PoseCore
import TestSupport

/// Locations of the shared (never committed) weights and tools, and scratch files.
enum SharedData {
    /// `$POSEKIT_SHARED`, else `<repo root>/../shared` (repo root derived from this file's path).
    static let root: URL = {
        if let env = ProcessInfo.processInfo.environment["POSEKIT_SHARED"], !env.isEmpty {
            return URL(fileURLWithPath: env)
        }
        let repo = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
        return repo.deletingLastPathComponent().appendingPathComponent("shared").standardizedFileURL
    }()

    static let coreMLModel = root.appendingPathComponent("weights/posenet-mobilenet075-s16-coreml/PoseNetMobileNet075S16FP16.mlmodel")
    static let graphDefModel = root.appendingPathComponent("weights/posenet-mobilenet050-tf/model-mobilenet_v1_050.pb")
    static let referenceTools = root.appendingPathComponent("tools/posenet_reference")

    /// A fresh scratch directory for one test, which removes it when it ends (also on failure):
    ///
    ///     let dir = try SharedData.scratchDirectory()
    ///     defer { try? FileManager.default.removeItem(at: dir) }
    static func scratchDirectory() throws -> URL {
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("posekit-weights-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
        return dir
    }

    /// Whether `python3` with numpy can run (for the independent cross-check).
    static let pythonWithNumpy: Bool = {
        (try? runPython(["-c", "import numpy"]))?.status == 0
    }()

    static func runPython(_ arguments: [String]) throws -> (status: Int32, output: String) {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        process.arguments = ["python3"] + arguments
        let pipe = Pipe()
        process.standardOutput = pipe
        process.standardError = FileHandle.nullDevice
        try process.run()
        let data = pipe.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        return (process.terminationStatus, String(decoding: data, as: UTF8.self))
    }
}


/// Writes small but complete PoseNet-shaped Core ML models with the test protobuf writer, and
/// remembers the raw (unfolded, OIHW) parameters so tests can check the import independently.
struct CoreMLFixture {
    struct Conv {
        var name: String
        var output: String
        var cout: Int
        var kernelChannels: Int
        var groups: Int
        var k: Int
        var stride: Int
        var weights: [Float]   // OIHW
        var gamma: [Float], beta: [Float], mean: [Float], variance: [Float]
        var bnName: String
        var bnOutput: String
    }

    var blockChannels = [4, 6, 8, 8, 8, 8, 8, 8, 8, 8, 8, 8, 8, 8]
    var fp16 = false
    var epsilon: Float = 0.001
    var colorSpace: UInt64 = 20
    var convs: [Conv] = []
    var headOrder = [3, 2, 1, 0] // Apple's file lists heads bwd, fwd, offsets, heatmap
    /// Extra layer (already encoded NeuralNetworkLayer bytes) inserted after layer index `at`.
    var injected: (at: Int, layer: [UInt8])?

    init(seed: UInt64 = 1, fp16: Bool = false) {
        self.fp16 = fp16
        var random = SeededGenerator(seed: seed)
        func conv(_ name: String, cout: Int, kc: Int, groups: Int, k: Int, stride: Int, bn: String, out: String) -> Conv {
            var w = random.floats(cout * kc * k * k)
            var g = random.floats(cout, 0.5, 1.5), b = random.floats(cout), m = random.floats(cout, -0.2, 0.2), v = random.floats(cout, 0.5, 2)
            if fp16 {  // keep values exactly representable so expectations are exact
                w = w.map { Float(Float16($0)) }; g = g.map { Float(Float16($0)) }; b = b.map { Float(Float16($0)) }
                m = m.map { Float(Float16($0)) }; v = v.map { Float(Float16($0)) }
            }
            return Conv(name: name, output: name + "_out", cout: cout, kernelChannels: kc, groups: groups, k: k, stride: stride,
                        weights: w, gamma: g, beta: b, mean: m, variance: v, bnName: bn, bnOutput: out)
        }
        let strides = MobileNetArchitecture.strides050And075
        convs.append(conv("MobilenetV1/Conv2D:0", cout: blockChannels[0], kc: 3, groups: 1, k: 3, stride: strides[0], bn: "bn0", out: "bn0_out"))
        for block in 1..<14 {
            let c = blockChannels[block - 1]
            convs.append(conv("MobilenetV1/depthwise_\(block - 1):0", cout: c, kc: 1, groups: c, k: 3, stride: strides[block], bn: "bnd\(block)", out: "bnd\(block)_out"))
            convs.append(conv("MobilenetV1/Conv2D_\(block):0", cout: blockChannels[block], kc: c, groups: 1, k: 1, stride: 1, bn: "bnp\(block)", out: "bnp\(block)_out"))
        }
        let last = blockChannels[13]
        let heads = [("Conv2D:0", 17, "heatmap_2:0", "heatmap_2:0"), ("Conv2D_1:0", 34, "offset_2:0", "offsets"),
                     ("Conv2D_2:0", 32, "displacement_fwd_2:0", "displacementFwd"), ("Conv2D_3:0", 32, "displacement_bwd_2:0", "displacementBwd")]
        for (name, channels, bn, out) in heads {
            convs.append(conv(name, cout: channels, kc: last, groups: 1, k: 1, stride: 1, bn: bn, out: out))
        }
    }

    // MARK: encoding

    func weightParams(_ values: [Float], _ w: inout ProtobufWriter) {
        if fp16 {
            w.bytes(2, HalfPrecision.narrow(values).flatMap { [UInt8($0 & 0xff), UInt8($0 >> 8)] })
        } else {
            w.packedFloats(1, values)
        }
    }

    func layer(_ name: String, _ input: String, _ output: String, type: Int, _ params: (inout ProtobufWriter) -> Void) -> [UInt8] {
        var l = ProtobufWriter()
        l.string(1, name)
        l.string(2, input)
        l.string(3, output)
        l.message(type, params)
        return l.bytes
    }

    func convLayers(_ c: Conv, input: String) -> [[UInt8]] {
        let conv = layer(c.name, input, c.output, type: 100) { p in
            p.uint(1, UInt64(c.cout)); p.uint(2, UInt64(c.kernelChannels)); p.uint(10, UInt64(c.groups))
            p.packedUInts(20, [UInt64(c.k), UInt64(c.k)]); p.packedUInts(30, [UInt64(c.stride), UInt64(c.stride)])
            p.packedUInts(40, [1, 1]); p.message(51) { _ in }
            p.message(90) { weightParams(c.weights, &$0) }
        }
        let bn = layer(c.bnName, c.output, c.bnOutput, type: 160) { p in
            p.uint(1, UInt64(c.cout)); p.float(10, epsilon)
            p.message(15) { weightParams(c.gamma, &$0) }; p.message(16) { weightParams(c.beta, &$0) }
            p.message(17) { weightParams(c.mean, &$0) }; p.message(18) { weightParams(c.variance, &$0) }
        }
        return [conv, bn]
    }

    static func relu6Layers(_ input: String, _ tag: String) -> (layers: [[UInt8]], output: String) {
        let fixture = CoreMLFixture(seed: 0)
        let a = fixture.layer("relu_\(tag)", input, "relu_\(tag)_out", type: 130) { $0.message(10) { _ in } }
        let b = fixture.layer("neg_\(tag)", "relu_\(tag)_out", "neg_\(tag)_out", type: 130) { $0.message(5) { $0.float(1, -1) } }
        let c = fixture.layer("clip_\(tag)", "neg_\(tag)_out", "clip_\(tag)_out", type: 220) { $0.uint(1, 7); $0.float(2, -6); $0.float(3, 1e-6); $0.float(5, 1) }
        let d = fixture.layer("relu6_\(tag)", "clip_\(tag)_out", "relu6_\(tag)_out", type: 130) { $0.message(5) { $0.float(1, -1) } }
        return ([a, b, c, d], "relu6_\(tag)_out")
    }

    /// The encoded `.mlmodel` bytes.
    func encoded() -> [UInt8] {
        var layers: [[UInt8]] = []
        var current = "image"
        for (i, c) in convs.prefix(27).enumerated() {
            layers += convLayers(c, input: current)
            let relu = CoreMLFixture.relu6Layers(c.bnOutput, "\(i)")
            layers += relu.layers
            current = relu.output
        }
        for h in headOrder {
            let c = convs[27 + h]
            layers += convLayers(c, input: current)
            if h == 0 { layers.append(layer("heatmap:0", c.bnOutput, "heatmap", type: 130) { $0.message(40) { _ in } }) }
        }
        if let injected { layers.insert(injected.layer, at: injected.at) }
        var model = ProtobufWriter()
        model.uint(1, 4)
        model.message(2) { d in
            d.message(1) { f in
                f.string(1, "image")
                f.message(3) { t in t.message(4) { i in i.uint(1, 33); i.uint(2, 33); i.uint(3, colorSpace) } }
            }
        }
        model.message(500) { nn in
            for l in layers { nn.bytes(1, l) }
            nn.message(2) { p in
                p.string(1, "image")
                p.message(10) { s in s.float(10, 2.0 / 255.0); s.float(20, -1); s.float(21, -1); s.float(22, -1) }
            }
        }
        return model.bytes
    }

    // MARK: independent expectation

    /// The canonical HWIO tensor and biases the importer should produce for conv `i`,
    /// computed here with plain loops (BN folded: scale = γ/√(var+ε), bias = β − mean·scale).
    func expected(_ i: Int) -> (weights: [Float], biases: [Float], shape: [Int]) {
        let c = convs[i]
        let scale = (0..<c.cout).map { c.gamma[$0] / (c.variance[$0] + epsilon).squareRoot() }
        let biases = (0..<c.cout).map { c.beta[$0] - c.mean[$0] * scale[$0] }
        if c.groups > 1 {
            var out = [Float](repeating: 0, count: c.k * c.k * c.cout)
            for ch in 0..<c.cout { for y in 0..<c.k { for x in 0..<c.k {
                out[(y * c.k + x) * c.cout + ch] = c.weights[(ch * c.k + y) * c.k + x] * scale[ch]
            } } }
            return (out, biases, [c.k, c.k, c.cout, 1])
        }
        var out = [Float](repeating: 0, count: c.k * c.k * c.kernelChannels * c.cout)
        for o in 0..<c.cout { for ci in 0..<c.kernelChannels { for y in 0..<c.k { for x in 0..<c.k {
            out[((y * c.k + x) * c.kernelChannels + ci) * c.cout + o] = c.weights[((o * c.kernelChannels + ci) * c.k + y) * c.k + x] * scale[o]
        } } } }
        return (out, biases, [c.k, c.k, c.kernelChannels, c.cout])
    }

    /// Canonical (weights name, biases name) of conv `i` in fixture order.
    static func canonicalNames(_ i: Int) -> (String, String) {
        if i == 0 { return (PoseNetWeightNames.firstConvWeights, PoseNetWeightNames.firstConvBiases) }
        if i < 27 {
            let block = (i + 1) / 2
            return i % 2 == 1 ? (PoseNetWeightNames.depthwiseWeights(block), PoseNetWeightNames.depthwiseBiases(block))
                              : (PoseNetWeightNames.pointwiseWeights(block), PoseNetWeightNames.pointwiseBiases(block))
        }
        let head = PoseNetWeightNames.heads[i - 27]
        return (PoseNetWeightNames.headWeights(head), PoseNetWeightNames.headBiases(head))
    }
}

/// Writes small frozen GraphDefs holding PoseNet Const tensors (canonical names, HWIO).
struct GraphDefFixture {
    var tensors: [(name: String, shape: [Int], values: [Float])] = []

    init(blockChannels: [Int] = [4, 6, 8, 8, 8, 8, 8, 8, 8, 8, 8, 8, 8, 8], seed: UInt64 = 7) {
        var random = SeededGenerator(seed: seed)
        for slot in PoseNetWeightNames.slots(blockChannels: blockChannels) {
            tensors.append((slot.name, slot.shape, random.floats(slot.shape.reduce(1, *))))
        }
    }

    /// Encoded GraphDef; `useFloatVal` stores values in `float_val` instead of `tensor_content`.
    func encoded(useFloatVal: Bool = false) -> [UInt8] {
        var graph = ProtobufWriter()
        graph.message(1) { n in n.string(1, "image"); n.string(2, "Placeholder") }
        for t in tensors {
            graph.message(1) { n in
                n.string(1, t.name)
                n.string(2, "Const")
                n.message(5) { entry in entry.string(1, "dtype"); entry.message(2) { $0.uint(6, 1) } }
                n.message(5) { entry in
                    entry.string(1, "value")
                    entry.message(2) { attr in
                        attr.message(8) { tensor in
                            tensor.uint(1, 1)
                            tensor.message(2) { shape in for d in t.shape { shape.message(2) { $0.uint(1, UInt64(d)) } } }
                            if useFloatVal {
                                tensor.packedFloats(5, t.values)
                            } else {
                                tensor.bytes(4, t.values.flatMap { v in withUnsafeBytes(of: v.bitPattern.littleEndian, Array.init) })
                            }
                        }
                    }
                }
            }
            graph.message(1) { n in n.string(1, t.name + "/read"); n.string(2, "Identity"); n.string(3, t.name) }
        }
        return graph.bytes
    }
}
