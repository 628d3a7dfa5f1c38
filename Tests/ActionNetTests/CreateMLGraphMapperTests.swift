import Foundation
import ModelGraph
import Tensor
import Testing
@testable import ActionNet

/// The Create ML mapper's layers (``CreateMLGraphMapper``) run on the graph runner against direct
/// loops written from Core ML's definitions: the settings the two reference models do not use
/// (strides and padding across, max pooling), and every axis of the N-D layers on a blob held
/// channels-last (after a convolution) as well as row-major, which is where a layout mapping
/// would go wrong.
struct CreateMLGraphMapperTests {
    static func values(_ count: Int, seed: Int) -> [Float] {
        (0..<count).map { Float(($0 * 7919 + seed * 104_729) % 2003) / 1001.5 - 1 }
    }

    static func layer(_ name: String, _ inputs: [String], _ operation: CoreMLOperation, outputs: [String]? = nil) -> CoreMLLayer {
        CoreMLLayer(name: name, inputs: inputs, outputs: outputs ?? [name], operation: operation, kind: "test")
    }

    /// A 1×1 convolution copying `channels` channels: its output is the input, held channels-last.
    static func identity(_ name: String, _ input: String, channels: Int) -> CoreMLLayer {
        var weights = [Float](repeating: 0, count: channels * channels)
        for c in 0..<channels { weights[c * channels + c] = 1 }
        return layer(name, [input], .convolution(CoreMLConvolution(
            inputChannels: channels, outputChannels: channels, kernelHeight: 1, kernelWidth: 1, strideY: 1, strideX: 1,
            padTop: 0, padBottom: 0, padLeft: 0, padRight: 0, oihw: weights, bias: nil)))
    }

    /// `layers` mapped (input blob "x" of `shape` holding `input`) and run; the blob `output` as
    /// Core ML has it (shape, row-major values).
    static func run(_ layers: [CoreMLLayer], _ shape: [Int], _ input: [Float], output: String,
                    fusing: Bool = true) throws -> (shape: [Int], values: [Float], graph: Graph) {
        let mapping = try CreateMLGraphMapper.map(layers, input: "x", inputShape: shape, output: output, file: "test.mlmodel", fusing: fusing)
        let result = try GraphRunner(graph: mapping.graph, threads: 1).run([Tensor(shape: shape, values: input)])[0]
        return (mapping.blobs[output]!.shape, result.scalars, mapping.graph)
    }

    /// Row-major strides of `shape`.
    static func strides(_ shape: [Int]) -> [Int] {
        var s = [Int](repeating: 1, count: shape.count)
        for axis in stride(from: shape.count - 2, through: 0, by: -1) { s[axis] = s[axis + 1] * shape[axis + 1] }
        return s
    }

    static func index(_ flat: Int, _ shape: [Int]) -> [Int] {
        let s = strides(shape)
        return shape.indices.map { flat / s[$0] % shape[$0] }
    }

    /// out[o, y, x] = bias[o] + Σ w[o, i, ky, kx] · in[i, y·sy + ky − top, x·sx + kx − left] (zero outside).
    @Test(arguments: [(3, 3, 2, 2, 1, 2, 1, 0), (2, 3, 1, 3, 0, 1, 2, 2), (1, 1, 2, 1, 1, 0, 0, 1), (1, 1, 1, 1, 0, 0, 0, 0), (9, 1, 2, 1, 4, 4, 0, 0)])
    func convolutionMatchesTheDefinition(kh: Int, kw: Int, sy: Int, sx: Int, top: Int, bottom: Int, left: Int, right: Int) throws {
        let (cin, cout, h, w) = (3, 4, 11, 6)
        let weights = Self.values(cout * cin * kh * kw, seed: 1), bias = Self.values(cout, seed: 2)
        let input = Self.values(cin * h * w, seed: 3)
        let conv = CoreMLConvolution(inputChannels: cin, outputChannels: cout, kernelHeight: kh, kernelWidth: kw, strideY: sy, strideX: sx,
                                     padTop: top, padBottom: bottom, padLeft: left, padRight: right, oihw: weights, bias: bias)
        let out = try Self.run([Self.layer("conv", ["x"], .convolution(conv))], [1, cin, h, w], input, output: "conv")
        let oh = (h + top + bottom - kh) / sy + 1, ow = (w + left + right - kw) / sx + 1
        #expect(out.shape == [1, cout, oh, ow])
        var worst: Float = 0
        for o in 0..<cout {
            for y in 0..<oh {
                for x in 0..<ow {
                    var sum = bias[o]
                    for i in 0..<cin {
                        for ky in 0..<kh {
                            for kx in 0..<kw {
                                let iy = y * sy + ky - top, ix = x * sx + kx - left
                                guard (0..<h).contains(iy), (0..<w).contains(ix) else { continue }
                                sum += weights[((o * cin + i) * kh + ky) * kw + kx] * input[(i * h + iy) * w + ix]
                            }
                        }
                    }
                    worst = max(worst, abs(sum - out.values[(o * oh + y) * ow + x]))
                }
            }
        }
        #expect(worst < 1e-5)
    }

    /// Convolution → batchnorm → ReLU, and a zero padding before: folded into one `conv2D` with
    /// the same values as each layer on its own.
    @Test func batchnormReLUAndPaddingFoldIntoTheConvolution() throws {
        let (cin, cout, h, w) = (3, 5, 9, 4)
        let conv = CoreMLConvolution(inputChannels: cin, outputChannels: cout, kernelHeight: 3, kernelWidth: 1, strideY: 2, strideX: 1,
                                     padTop: 0, padBottom: 0, padLeft: 0, padRight: 0, oihw: Self.values(cout * cin * 3, seed: 4), bias: Self.values(cout, seed: 5))
        let layers = [
            Self.identity("in", "x", channels: cin),
            Self.layer("pad", ["in"], .padding(top: 1, bottom: 1, left: 0, right: 0, value: 0)),
            Self.layer("conv", ["pad"], .convolution(conv)),
            Self.layer("bn", ["conv"], .batchnorm(scale: Self.values(cout, seed: 6), shift: Self.values(cout, seed: 7))),
            Self.layer("relu", ["bn"], .relu),
        ]
        let input = Self.values(cin * h * w, seed: 8)
        let fused = try Self.run(layers, [1, cin, h, w], input, output: "relu")
        let separate = try Self.run(layers, [1, cin, h, w], input, output: "relu", fusing: false)
        #expect(fused.shape == [1, cout, 5, 4] && separate.shape == fused.shape)
        // In and out of channels-last, the two convolutions and nothing else.
        #expect(fused.graph.nodes.map(\.operation.name).filter { $0 != "reshape" } == ["transpose", "conv2D", "conv2D", "transpose"])
        #expect(Set(separate.graph.nodes.map(\.operation.name)).isSuperset(of: ["pad", "scaleShift", "activation"]))
        let worst = zip(fused.values, separate.values).map { abs($0 - $1) }.max()!
        #expect(worst < 1e-5 && separate.values.contains { $0 > 0 } && separate.values.contains { $0 == 0 })
    }

    /// Every permutation of a 4-D blob, held channels-last (after a convolution) and row-major
    /// (the input), is NumPy's transpose.
    @Test func transposeIsNumPysInBothLayouts() throws {
        let shape = [1, 3, 4, 5]
        let input = Self.values(60, seed: 9)
        func permutations(_ items: [Int]) -> [[Int]] {
            items.count <= 1 ? [items] : items.indices.flatMap { i in
                permutations(Array(items[..<i] + items[(i + 1)...])).map { [items[i]] + $0 }
            }
        }
        for axes in permutations([0, 1, 2, 3]) {
            let expectedShape = axes.map { shape[$0] }
            let inStrides = Self.strides(shape)
            let expected = (0..<60).map { flat -> Float in
                let i = Self.index(flat, expectedShape)
                return input[i.indices.reduce(0) { $0 + i[$1] * inStrides[axes[$1]] }]
            }
            for start in ["x", "in"] {
                let layers = [Self.identity("in", "x", channels: 3), Self.layer("t", [start], .transpose(axes: axes))]
                let out = try Self.run(layers, shape, input, output: "t")
                #expect(out.shape == expectedShape && out.values == expected, "\(axes) from \(start)")
            }
        }
    }

    /// splitND on every axis, then concat / concatND back in another order, and softmaxND on every
    /// axis, from a channels-last blob and from the row-major input.
    @Test func splitConcatAndSoftmaxOnEveryAxis() throws {
        let shape = [1, 4, 6, 2]
        let input = Self.values(48, seed: 10)
        for axis in 0..<4 where shape[axis] > 1 {
            for start in ["x", "in"] {
                let half = shape[axis] / 2
                let layers = [
                    Self.identity("in", "x", channels: 4),
                    Self.layer("split", [start], .splitND(axis: axis - 4, count: 2, sizes: []), outputs: ["a", "b"]),
                    Self.layer("cat", ["b", "a"], .concatND(axis: axis)),
                ]
                let out = try Self.run(layers, shape, input, output: "cat")
                let expected = (0..<48).map { flat -> Float in
                    var i = Self.index(flat, shape)
                    i[axis] = (i[axis] + half) % shape[axis]
                    return input[i.indices.reduce(0) { $0 + i[$1] * Self.strides(shape)[$1] }]
                }
                #expect(out.shape == shape && out.values == expected, "split/concat axis \(axis) from \(start)")
                let soft = try Self.run([Self.identity("in", "x", channels: 4), Self.layer("s", [start], .softmaxND(axis: axis))],
                                        shape, input, output: "s")
                let s = Self.strides(shape)
                for flat in 0..<48 {
                    let i = Self.index(flat, shape)
                    let line = (0..<shape[axis]).map { k -> Double in
                        var j = i
                        j[axis] = k
                        return Double(input[j.indices.reduce(0) { $0 + j[$1] * s[$1] }])
                    }
                    let want = exp(Double(input[flat])) / line.map { exp($0) }.reduce(0, +)
                    #expect(abs(Double(soft.values[flat]) - want) < 1e-6, "softmax axis \(axis) from \(start) at \(i)")
                }
            }
        }
        // Legacy concat: along channels (axis −3).
        let cat = try Self.run([Self.identity("in", "x", channels: 4), Self.layer("c", ["in", "x"], .concat)], shape, input, output: "c")
        #expect(cat.shape == [1, 8, 6, 2] && cat.values == input + input)
    }

    /// Reshapes, squeeze and expandDims keep the row-major values; a channels-last blob that only
    /// gains or loses leading axes of 1 needs no node at all.
    @Test func reshapesKeepRowMajorOrder() throws {
        let shape = [1, 3, 4, 2]
        let input = Self.values(24, seed: 11)
        for start in ["x", "in"] {
            let flat = try Self.run([Self.identity("in", "x", channels: 3), Self.layer("r", [start], .reshapeStatic(shape: [4, -1]))],
                                    shape, input, output: "r")
            #expect(flat.shape == [4, 6] && flat.values == input)
            let expanded = try Self.run([Self.identity("in", "x", channels: 3), Self.layer("e", [start], .expandDims(axes: [0])),
                                         Self.layer("s", ["e"], .squeeze(axes: [0, 1], all: false))], shape, input, output: "s")
            #expect(expanded.shape == [3, 4, 2] && expanded.values == input)
        }
        let kept = try Self.run([Self.identity("in", "x", channels: 3), Self.layer("e", ["in"], .expandDims(axes: [0])),
                                 Self.layer("r", ["e"], .relu)], shape, input, output: "r")
        #expect(kept.graph.nodes.map(\.operation.name).filter { $0 == "transpose" }.count == 2, "in and out of channels-last only")
        #expect(throws: CoreMLModelError.self) {
            try Self.run([Self.layer("r", ["x"], .reshapeStatic(shape: [5, -1]))], shape, input, output: "r")
        }
    }

    /// Shape computations are folded: getShape → gather → expandDims → concatND with a constant →
    /// reshapeDynamic (PlayerActionClassifier's tail) becomes one reshape, and gather is NumPy's take.
    @Test func shapeComputationsAreFolded() throws {
        let layers = [
            Self.layer("shape", ["x"], .getShape),
            Self.layer("index", [], .loadConstant(shape: [1], values: [0])),
            Self.layer("batch", ["shape", "index"], .gather(axis: 0)),
            Self.layer("batch2", ["batch"], .expandDims(axes: [0])),
            Self.layer("rest", [], .loadConstant(shape: [1], values: [-1])),
            Self.layer("target", ["batch2", "rest"], .concatND(axis: 0)),
            Self.layer("flat", ["x", "target"], .reshapeDynamic),
            Self.layer("p", ["flat"], .softmax),
        ]
        let input = Self.values(8, seed: 12)
        let out = try Self.run(layers, [1, 4, 2], input, output: "p")
        #expect(out.shape == [1, 8])
        #expect(out.graph.nodes.map(\.operation.name) == ["reshape", "softmax", "reshape"] || out.graph.nodes.map(\.operation.name) == ["reshape", "softmax"])
        #expect(abs(out.values.reduce(0, +) - 1) < 1e-6)
        let take = try CreateMLGraphMapper.map([Self.layer("k", [], .loadConstant(shape: [2, 3], values: [0, 1, 2, 3, 4, 5])),
                                                Self.layer("i", [], .loadConstant(shape: [2], values: [2, -3])),
                                                Self.layer("g", ["k", "i"], .gather(axis: 1)),
                                                Self.layer("o", ["x", "g"], .addBroadcastable)],
                                               input: "x", inputShape: [2, 2], output: "o", file: "t")
        guard case .constant(let taken) = take.blobs["g"]!.storage else { Issue.record("gather not folded"); return }
        #expect(taken == [2, 0, 5, 3])
    }

    /// Average pooling divides by the window inside the input (excludePadding) or by kH·kW; max
    /// ignores the padding; average pooling over the whole plane is its mean.
    @Test func poolingMatchesTheDefinition() throws {
        let x: [Float] = [1, 2, 3, 4, 5, 6, 7, 8, 9]
        func pool(_ average: Bool, _ exclude: Bool) throws -> [Float] {
            let p = CoreMLPooling(average: average, global: false, kernelHeight: 2, kernelWidth: 2, strideY: 2, strideX: 2,
                                  padTop: 1, padBottom: 0, padLeft: 1, padRight: 0, excludePadding: exclude)
            return try Self.run([Self.layer("p", ["x"], .pooling(p))], [1, 1, 3, 3], x, output: "p").values
        }
        #expect(try pool(true, true) == [1, 2.5, 5.5, 7])
        #expect(try pool(true, false) == [0.25, 1.25, 2.75, 7])
        #expect(try pool(false, false) == [1, 3, 7, 9])
        let mean = CoreMLPooling(average: true, global: true, kernelHeight: 0, kernelWidth: 0, strideY: 1, strideX: 1,
                                 padTop: 0, padBottom: 0, padLeft: 0, padRight: 0, excludePadding: false)
        let pooled = try Self.run([Self.layer("p", ["x"], .pooling(mean))], [1, 1, 3, 3], x, output: "p")
        #expect(pooled.shape == [1, 1, 1, 1] && pooled.values == [5])
    }

    /// What no graph operation runs is refused naming the layer: a convolution over a batch of
    /// two, non-zero padding, a broadcasting add, a gather of data computed at run time.
    @Test func unsupportedLayersAreRefusedByName() {
        let conv = CoreMLConvolution(inputChannels: 1, outputChannels: 1, kernelHeight: 1, kernelWidth: 1, strideY: 1, strideX: 1,
                                     padTop: 0, padBottom: 0, padLeft: 0, padRight: 0, oihw: [1], bias: nil)
        let cases: [([CoreMLLayer], [Int], String)] = [
            ([Self.layer("c", ["x"], .convolution(conv))], [2, 1, 3, 3], "batch 1"),
            ([Self.layer("p", ["x"], .padding(top: 1, bottom: 0, left: 0, right: 0, value: 9))], [1, 1, 3, 3], "zeros only"),
            ([Self.layer("k", [], .loadConstant(shape: [3], values: [1, 2, 3])), Self.layer("a", ["x", "k"], .addBroadcastable)], [2, 3], "equal shapes"),
            ([Self.layer("k", [], .loadConstant(shape: [1], values: [0])), Self.layer("g", ["x", "k"], .gather(axis: 0))], [2, 3], "gather"),
        ]
        for (layers, shape, words) in cases {
            do {
                _ = try CreateMLGraphMapper.map(layers, input: "x", inputShape: shape, output: layers.last!.outputs[0], file: "t.mlmodel")
                Issue.record("\(words): mapped")
            } catch {
                #expect("\(error)".contains(words) && "\(error)".contains("'\(layers.last!.name)'"), "\(error)")
            }
        }
    }
}
