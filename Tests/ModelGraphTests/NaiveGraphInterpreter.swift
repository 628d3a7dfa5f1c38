import Foundation
import ModelGraph
import Tensor

/// The reference the runner is tested against: every registered operation as the
/// plainest loop over its documented semantics, in float64, with explicit padding amounts read
/// straight from the node (no SAME/VALID conventions, no packing, no buffers reused). Test-only.
enum NaiveGraphInterpreter {
    /// A value: shape and row-major float64 elements.
    struct Value { var shape: [Int]; var data: [Double] }

    /// Every value the graph's nodes make, from `inputs` (one per graph input).
    static func run(_ graph: Graph, inputs: [Tensor]) -> [Value?] {
        var values = [Value?](repeating: nil, count: graph.values.count)
        for (id, value) in graph.values.enumerated() {
            if let constant = value.constant { values[id] = Value(shape: constant.shape, data: constant.scalars.map(Double.init)) }
        }
        for (id, tensor) in zip(graph.inputs, inputs) {
            values[id] = Value(shape: graph.values[id].shape, data: tensor.scalars.map(Double.init))
        }
        for node in graph.nodes {
            let x = node.inputs.map { values[$0]! }
            let shape = graph.values[node.outputs[0]].shape
            values[node.outputs[0]] = Value(shape: shape, data: evaluate(node.operation, x, outputShape: shape))
        }
        return values
    }

    static func activate(_ v: Double, _ activation: Activation) -> Double {
        switch activation {
        case .none: return v
        case .relu: return max(v, 0)
        case .relu6: return min(max(v, 0), 6)
        }
    }

    static func evaluate(_ operation: any GraphOperation, _ x: [Value], outputShape: [Int]) -> [Double] {
        let count = outputShape.reduce(1, *)
        var out = [Double](repeating: 0, count: count)
        // The operation's parameters, whichever kind it is (a conv and a depthwise share a window).
        let conv = operation as? Conv2DOp, depthwiseOp = operation as? DepthwiseConv2DOp
        switch operation {
        case is Conv2DOp, is DepthwiseConv2DOp:
            let window = conv?.window ?? depthwiseOp!.window, activation = conv?.activation ?? depthwiseOp!.activation
            let depthwise = depthwiseOp != nil
            let (h, w, cin) = (x[0].shape[0], x[0].shape[1], x[0].shape[2])
            let (oh, ow, cout) = (outputShape[0], outputShape[1], outputShape[2])
            let (kh, kw) = (window.kernelHeight, window.kernelWidth)
            for oy in 0..<oh { for ox in 0..<ow { for co in 0..<cout {
                var sum = x[2].data[co]
                for ky in 0..<kh { for kx in 0..<kw {
                    let iy = oy * window.strideHeight - window.padding.top + ky * window.dilationHeight
                    let ix = ox * window.strideWidth - window.padding.left + kx * window.dilationWidth
                    guard iy >= 0, iy < h, ix >= 0, ix < w else { continue }
                    if depthwise {
                        sum += x[0].data[(iy * w + ix) * cin + co] * x[1].data[(ky * kw + kx) * cin + co]
                    } else {
                        for ci in 0..<cin {
                            sum += x[0].data[(iy * w + ix) * cin + ci] * x[1].data[((ky * kw + kx) * cin + ci) * cout + co]
                        }
                    }
                } }
                out[(oy * ow + ox) * cout + co] = activate(sum, activation)
            } } }
        case let op as FullyConnectedOp:
            let activation = op.activation
            let n = x[0].data.count
            for o in 0..<count {
                var sum = x[2].data[o]
                for i in 0..<n { sum += x[0].data[i] * x[1].data[i * count + o] }
                out[o] = activate(sum, activation)
            }
        case let op as AddOp:
            let activation = op.activation
            for i in 0..<count { out[i] = activate(x[0].data[i] + x[1].data[i], activation) }
        case is PReLUOp:
            let c = x[1].data.count
            for i in 0..<count { let v = x[0].data[i]; out[i] = v > 0 ? v : x[1].data[i % c] * v }
        case is LogisticOp:
            for i in 0..<count { out[i] = 1 / (1 + exp(-x[0].data[i])) }
        case let op as PadOp:
            let amounts = op.amounts
            let inShape = x[0].shape
            for i in 0..<x[0].data.count {
                var rest = i, target = 0
                var index = [Int](repeating: 0, count: inShape.count)
                for axis in stride(from: inShape.count - 1, through: 0, by: -1) { index[axis] = rest % inShape[axis]; rest /= inShape[axis] }
                for axis in 0..<inShape.count { target = target * outputShape[axis] + index[axis] + amounts[axis].before }
                out[target] = x[0].data[i]
            }
        case let op as MaxPool2DOp:
            let window = op.window
            let (h, w, c) = (x[0].shape[0], x[0].shape[1], x[0].shape[2])
            for oy in 0..<outputShape[0] { for ox in 0..<outputShape[1] { for ch in 0..<c {
                var best = -Double.infinity
                for ky in 0..<window.kernelHeight { for kx in 0..<window.kernelWidth {
                    let iy = oy * window.strideHeight - window.padding.top + ky, ix = ox * window.strideWidth - window.padding.left + kx
                    if iy >= 0, iy < h, ix >= 0, ix < w { best = max(best, x[0].data[(iy * w + ix) * c + ch]) }
                } }
                out[(oy * outputShape[1] + ox) * c + ch] = best
            } } }
        case is SpatialMeanOp:
            let (pixels, c) = (x[0].shape[0] * x[0].shape[1], x[0].shape[2])
            for ch in 0..<c { out[ch] = (0..<pixels).reduce(0) { $0 + x[0].data[$1 * c + ch] } / Double(pixels) }
        case is ResizeBilinearOp:
            // TF's half-pixel rule: source = (o + 0.5)·in/out − 0.5, clamped at 0 below; the upper
            // neighbour clamped to the last pixel.
            let (h, w, c) = (x[0].shape[0], x[0].shape[1], x[0].shape[2])
            let (oh, ow) = (outputShape[0], outputShape[1])
            func source(_ o: Int, _ n: Int, _ m: Int) -> (Int, Int, Double) {
                let s = max(0, (Double(o) + 0.5) * Double(n) / Double(m) - 0.5)
                let lo = min(Int(s), n - 1)
                return (lo, min(lo + 1, n - 1), s - Double(lo))
            }
            for oy in 0..<oh { for ox in 0..<ow {
                let (y0, y1, fy) = source(oy, h, oh), (x0, x1, fx) = source(ox, w, ow)
                for ch in 0..<c {
                    func at(_ y: Int, _ x_: Int) -> Double { x[0].data[(y * w + x_) * c + ch] }
                    let top = at(y0, x0) * (1 - fx) + at(y0, x1) * fx, bottom = at(y1, x0) * (1 - fx) + at(y1, x1) * fx
                    out[(oy * ow + ox) * c + ch] = top * (1 - fy) + bottom * fy
                }
            } }
        case let op as DepthToSpaceOp:
            let b = op.blockSize
            let (h, w, cb) = (x[0].shape[0], x[0].shape[1], x[0].shape[2])
            let c = cb / (b * b)
            for y in 0..<h { for xx in 0..<w { for i in 0..<b { for j in 0..<b { for ch in 0..<c {
                out[((y * b + i) * w * b + xx * b + j) * c + ch] = x[0].data[(y * w + xx) * cb + (i * b + j) * c + ch]
            } } } } }
        case is ReshapeOp:
            out = x[0].data
        case let op as ConcatenationOp:
            let axis = op.axis
            let outer = outputShape[..<axis].reduce(1, *)
            var position = 0
            for o in 0..<outer {
                for part in x {
                    let run = part.shape[axis...].reduce(1, *)
                    for i in 0..<run { out[position] = part.data[o * run + i]; position += 1 }
                }
            }
        case let op as TransposeOp:
            let inShape = x[0].shape
            var inStrides = [Int](repeating: 1, count: inShape.count)
            for axis in stride(from: inShape.count - 2, through: 0, by: -1) { inStrides[axis] = inStrides[axis + 1] * inShape[axis + 1] }
            for i in 0..<count {
                var rest = i, from = 0
                for axis in stride(from: outputShape.count - 1, through: 0, by: -1) {
                    from += rest % outputShape[axis] * inStrides[op.permutation[axis]]
                    rest /= outputShape[axis]
                }
                out[i] = x[0].data[from]
            }
        case let op as SliceOp:
            let inner = outputShape[(op.axis + 1)...].reduce(1, *), size = outputShape[op.axis], inSize = x[0].shape[op.axis]
            for i in 0..<count {
                let (o, a, r) = (i / (size * inner), i / inner % size, i % inner)
                out[i] = x[0].data[(o * inSize + op.start + a) * inner + r]
            }
        case let op as SoftmaxOp:
            let inner = outputShape[(op.axis + 1)...].reduce(1, *), size = outputShape[op.axis]
            for i in 0..<count {
                let base = i / (size * inner) * size * inner + i % inner
                let line = (0..<size).map { x[0].data[base + $0 * inner] }
                out[i] = exp(x[0].data[i]) / line.map { exp($0) }.reduce(0, +)
            }
        case let op as ScaleShiftOp:
            let inner = outputShape[(op.axis + 1)...].reduce(1, *), size = outputShape[op.axis]
            for i in 0..<count { out[i] = activate(x[0].data[i] * x[1].data[i / inner % size] + x[2].data[i / inner % size], op.activation) }
        case let op as ActivationOp:
            for i in 0..<count { out[i] = activate(x[0].data[i], op.activation) }
        case let op as AveragePool2DOp:
            let window = op.window
            let (h, w, c) = (x[0].shape[0], x[0].shape[1], x[0].shape[2])
            for oy in 0..<outputShape[0] { for ox in 0..<outputShape[1] { for ch in 0..<c {
                var sum = 0.0, inside = 0
                for ky in 0..<window.kernelHeight { for kx in 0..<window.kernelWidth {
                    let iy = oy * window.strideHeight - window.padding.top + ky, ix = ox * window.strideWidth - window.padding.left + kx
                    if iy >= 0, iy < h, ix >= 0, ix < w { sum += x[0].data[(iy * w + ix) * c + ch]; inside += 1 }
                } }
                out[(oy * outputShape[1] + ox) * c + ch] = sum / Double(op.excludingPadding ? inside : window.kernelHeight * window.kernelWidth)
            } } }
        default:
            fatalError("the naive interpreter has no loop for \(operation.name)")
        }
        return out
    }
}
