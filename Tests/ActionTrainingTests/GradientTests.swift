import Testing
import Tensor
@_spi(Training) @testable import ActionNet
@_spi(Training) @testable import ActionTraining
import PoseCore

/// Backward passes against naive forward loops and central finite differences.
struct GradientTests {
    /// Naive temporal convolution (KIO weights, NTC activations, symmetric zero padding).
    func naiveConv(_ x: [Float], batch: Int, time: Int, conv: TemporalConv, parameters: [Float]) -> [Float] {
        let tOut = conv.outputLength(time)
        var y = [Float](repeating: 0, count: batch * tOut * conv.outputChannels)
        for b in 0..<batch { for t in 0..<tOut { for o in 0..<conv.outputChannels {
            var s = Double(parameters[conv.offset + conv.weightCount + o])
            for j in 0..<conv.kernel {
                let ti = t * conv.stride + j - conv.padding
                guard ti >= 0 && ti < time else { continue }
                for c in 0..<conv.inputChannels {
                    s += Double(x[(b * time + ti) * conv.inputChannels + c]) * Double(parameters[conv.offset + (j * conv.inputChannels + c) * conv.outputChannels + o])
                }
            }
            y[(b * tOut + t) * conv.outputChannels + o] = Float(s)
        } } }
        return y
    }

    func random(_ n: Int, _ rng: inout SeededRandom) -> [Float] { (0..<n).map { _ in Float(rng.gaussian()) } }

    /// A layer whose weights sit at `offset` of a parameter vector of `count` scalars.
    func layer(_ cin: Int, _ cout: Int, kernel: Int, stride: Int, offset: Int, count: Int) throws -> TemporalConv {
        try TemporalConv(inputChannels: cin, outputChannels: cout, kernel: kernel, stride: stride, offset: offset,
                         parameters: Tensor(zeros: [count]))
    }

    @Test(arguments: [(1, 1), (3, 1), (5, 2), (9, 2)])
    func convolutionForwardMatchesNaiveLoops(kernel: Int, stride: Int) throws {
        var rng = SeededRandom(seed: UInt64(kernel * 10 + stride))
        let conv = try layer(3, 4, kernel: kernel, stride: stride, offset: 2, count: kernel * 12 + 4 + 2)
        let batch = 2, time = 11
        let params = random(conv.parameterCount + 2, &rng), x = random(batch * time * 3, &rng)
        let rows = batch * conv.outputLength(time)
        var cols = [Float](repeating: 0, count: rows * conv.patchSize), y = [Float](repeating: 0, count: rows * 4)
        conv.im2col(x, batch: batch, time: time, patches: &cols)
        conv.forward(patches: cols, rows: rows, parameters: params, y: &y)
        let reference = naiveConv(x, batch: batch, time: time, conv: conv, parameters: params)
        for i in y.indices { #expect(abs(y[i] - reference[i]) < 1e-4) }
    }

    /// Loss L = Σ r ⊙ conv(x) for a fixed random r, so ∂L/∂y = r.
    @Test(arguments: [(3, 1), (5, 2)])
    func convolutionBackwardMatchesFiniteDifferences(kernel: Int, stride: Int) throws {
        var rng = SeededRandom(seed: 99)
        let conv = try layer(3, 2, kernel: kernel, stride: stride, offset: 0, count: kernel * 6 + 2)
        let batch = 2, time = 7, rows = batch * conv.outputLength(time)
        let params = random(conv.parameterCount, &rng), x = random(batch * time * 3, &rng)
        let r = random(rows * 2, &rng)
        func loss(_ p: [Float], _ x: [Float]) -> Double {
            zip(naiveConv(x, batch: batch, time: time, conv: conv, parameters: p), r).reduce(0) { $0 + Double($1.0) * Double($1.1) }
        }
        var cols = [Float](repeating: 0, count: rows * conv.patchSize), dcols = cols
        conv.im2col(x, batch: batch, time: time, patches: &cols)
        var grads = [Float](repeating: 0, count: conv.parameterCount), dx = [Float](repeating: 0, count: x.count)
        conv.backward(patches: cols, dy: r, batch: batch, time: time, parameters: params, gradients: &grads, patchGradients: &dcols, dx: &dx)
        // Central differences over every weight, bias and input.
        func numeric(input: Bool, _ i: Int) -> Double {
            let eps: Float = 1e-2
            var p = params, v = x
            if input { v[i] += eps } else { p[i] += eps }
            let up = loss(p, v)
            if input { v[i] -= 2 * eps } else { p[i] -= 2 * eps }
            return (up - loss(p, v)) / Double(2 * eps)
        }
        for i in 0..<conv.parameterCount {
            let n = numeric(input: false, i)
            #expect(abs(n - Double(grads[i])) < 1e-3, "parameter \(i)")
        }
        for i in 0..<x.count {
            let n = numeric(input: true, i)
            #expect(abs(n - Double(dx[i])) < 1e-3, "input \(i)")
        }
    }

    /// The whole network (convs, residual blocks, ReLUs, pooling, dense, softmax cross-entropy).
    @Test func networkBackwardMatchesFiniteDifferences() throws {
        var a = TemporalConvNet.Architecture()
        a.windowLength = 12; a.channels1 = 4; a.channels2 = 6; a.kernel = 3
        let net = try TemporalConvNet(architecture: a)
        net.initialize(seed: 11)
        // Non-zero biases so every ReLU has some units on and some off.
        var rng = SeededRandom(seed: 12)
        var p = net.parameterValues
        for i in p.indices { p[i] += Float(0.05 * rng.gaussian()) }
        net.parameterValues = p
        let batch = 3
        let pass = TrainingPass(net, batch: batch)
        let input = random(batch * 12 * 51, &rng)
        let labels = [0, 3, 4], weights: [Float] = [1, 0.5, 2]
        func loss() -> Double {
            input.withUnsafeBufferPointer { pass.windows.floats.update(from: $0.baseAddress!, count: input.count) }
            pass.forward()
            return Double(pass.crossEntropy(labels: labels, weights: weights))
        }
        _ = loss()
        pass.gradients.zero()
        pass.backward()
        let analytic = Array(pass.gradients.buffer)
        func numeric(_ i: Int, _ eps: Float) -> Double {
            var q = net.parameterValues
            let keep = q[i]
            q[i] = keep + eps; net.parameterValues = q; let up = loss()
            q[i] = keep - eps; net.parameterValues = q; let down = loss()
            q[i] = keep; net.parameterValues = q
            return (up - down) / Double(2 * eps)
        }
        var checked = 0, kinks = 0, bad = 0
        // A strided sample of every layer's parameters.
        for i in Swift.stride(from: 0, to: net.parameterCount, by: 3) {
            let coarse = numeric(i, 4e-3), fine = numeric(i, 2e-3)
            // Differences that change with the step straddle a ReLU kink: not a test of the gradient.
            if abs(coarse - fine) > 1e-3 + 0.02 * abs(fine) { kinks += 1; continue }
            checked += 1
            if abs(fine - Double(analytic[i])) > 1e-3 + 0.02 * abs(fine) { bad += 1 }
        }
        #expect(checked > 150 && kinks < checked, "\(kinks) kinks")
        #expect(bad == 0, "\(bad) of \(checked) gradients disagree")
        #expect(analytic.contains { abs($0) > 1e-4 })
    }
}
