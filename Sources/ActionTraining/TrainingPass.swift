import COpenBLAS
import Foundation
@_spi(Training) import ActionNet
import Tensor

extension TensorStorage {
    /// The first float (the storage is never empty: it holds at least one element).
    var floats: UnsafeMutablePointer<Float> { buffer.baseAddress! }
    func zero() { buffer.update(repeating: 0) }
}

/// A batched forward and backward pass of a ``TemporalConvNet`` for training: the activations of
/// every layer for `batch` windows (NTC, `[batch, steps, channels]`), the im2col patches the
/// backward pass reuses, and the gradients of the network's flat parameter vector.
final class TrainingPass {
    let net: TemporalConvNet
    let batch: Int
    /// ∂loss/∂parameters, in the parameter vector's order; ``backward()`` accumulates into it.
    let gradients: TensorStorage
    /// The windows' features `[batch, T, 51]` (fill before ``forward()``).
    let windows: TensorStorage
    let conv0Patches, stage1, block1aPatches, block1Hidden, block1bPatches, block1Output: TensorStorage
    let conv2Patches, stage2, block2aPatches, block2Hidden, block2bPatches, block2Output: TensorStorage
    /// Mean over time `[batch, C2]` and the dense layer's output `[batch, classes]`.
    let pooled, logits: TensorStorage
    // Gradient scratch: ∂loss/∂ each activation above.
    let patchGradients, block2OutputGradient, block2HiddenGradient, stage2Gradient: TensorStorage
    let block1OutputGradient, block1HiddenGradient, stage1Gradient, pooledGradient, logitsGradient: TensorStorage

    init(_ net: TemporalConvNet, batch: Int) {
        let a = net.architecture
        let t0 = a.windowLength, t1 = net.conv0.outputLength(t0), t2 = net.conv2.outputLength(t1)
        func buffer(_ n: Int) -> TensorStorage { TensorStorage(count: max(n, 1)) }
        self.net = net
        self.batch = batch
        gradients = buffer(net.parameterCount)
        windows = buffer(batch * t0 * a.inputChannels)
        conv0Patches = buffer(batch * t1 * net.conv0.patchSize)
        stage1 = buffer(batch * t1 * a.channels1)
        block1aPatches = buffer(batch * t1 * net.block1a.patchSize)
        block1Hidden = buffer(batch * t1 * a.channels1)
        block1bPatches = buffer(batch * t1 * net.block1b.patchSize)
        block1Output = buffer(batch * t1 * a.channels1)
        conv2Patches = buffer(batch * t2 * net.conv2.patchSize)
        stage2 = buffer(batch * t2 * a.channels2)
        block2aPatches = buffer(batch * t2 * net.block2a.patchSize)
        block2Hidden = buffer(batch * t2 * a.channels2)
        block2bPatches = buffer(batch * t2 * net.block2b.patchSize)
        block2Output = buffer(batch * t2 * a.channels2)
        pooled = buffer(batch * a.channels2)
        logits = buffer(batch * a.classes)
        patchGradients = buffer(batch * t1 * max(net.block1a.patchSize, net.conv2.patchSize, net.block2a.patchSize))
        block2OutputGradient = buffer(block2Output.buffer.count); block2HiddenGradient = buffer(block2Hidden.buffer.count)
        stage2Gradient = buffer(stage2.buffer.count); block1OutputGradient = buffer(block1Output.buffer.count)
        block1HiddenGradient = buffer(block1Hidden.buffer.count); stage1Gradient = buffer(stage1.buffer.count)
        pooledGradient = buffer(pooled.buffer.count); logitsGradient = buffer(logits.buffer.count)
    }

    var parameters: UnsafeMutablePointer<Float> { net.parameters.storage.floats + net.parameters.offset }

    @inline(__always) static func relu(_ p: UnsafeMutablePointer<Float>, _ n: Int) {
        for i in 0..<n where p[i] < 0 { p[i] = 0 }
    }

    /// Runs the network on the `batch` windows in ``windows``; logits land in ``logits``.
    func forward() {
        let a = net.architecture, b = batch, p = UnsafePointer(parameters)
        let t0 = a.windowLength, t1 = net.conv0.outputLength(t0), t2 = net.conv2.outputLength(t1)
        net.conv0.im2col(windows.floats, batch: b, time: t0, patches: conv0Patches.floats)
        net.conv0.forward(patches: conv0Patches.floats, rows: b * t1, parameters: p, y: stage1.floats)
        Self.relu(stage1.floats, b * t1 * a.channels1)
        residual(net.block1a, net.block1b, x: stage1, patchesA: block1aPatches, hidden: block1Hidden,
                 patchesB: block1bPatches, y: block1Output, time: t1)
        net.conv2.im2col(block1Output.floats, batch: b, time: t1, patches: conv2Patches.floats)
        net.conv2.forward(patches: conv2Patches.floats, rows: b * t2, parameters: p, y: stage2.floats)
        Self.relu(stage2.floats, b * t2 * a.channels2)
        residual(net.block2a, net.block2b, x: stage2, patchesA: block2aPatches, hidden: block2Hidden,
                 patchesB: block2bPatches, y: block2Output, time: t2)
        // Global average pool over time, then the dense layer.
        let c2 = a.channels2, inv = 1 / Float(t2)
        pooled.zero()
        for n in 0..<b {
            let dst = pooled.floats + n * c2
            for t in 0..<t2 {
                let src = block2Output.floats + (n * t2 + t) * c2
                for c in 0..<c2 { dst[c] += src[c] }
            }
            for c in 0..<c2 { dst[c] *= inv }
        }
        let k = a.classes, bias = p + net.denseOffset + c2 * k
        for n in 0..<b { (logits.floats + n * k).update(from: bias, count: k) }
        cblas_sgemm(CblasRowMajor, CblasNoTrans, CblasNoTrans, Int32(b), Int32(k), Int32(c2),
                    1, pooled.floats, Int32(c2), p + net.denseOffset, Int32(k), 1, logits.floats, Int32(k))
    }

    /// `y = ReLU(x + convB(ReLU(convA(x))))`.
    private func residual(_ convA: TemporalConv, _ convB: TemporalConv, x: TensorStorage, patchesA: TensorStorage,
                          hidden: TensorStorage, patchesB: TensorStorage, y: TensorStorage, time: Int) {
        let p = UnsafePointer(parameters), n = batch * time * convA.outputChannels
        convA.im2col(x.floats, batch: batch, time: time, patches: patchesA.floats)
        convA.forward(patches: patchesA.floats, rows: batch * time, parameters: p, y: hidden.floats)
        Self.relu(hidden.floats, n)
        convB.im2col(hidden.floats, batch: batch, time: time, patches: patchesB.floats)
        convB.forward(patches: patchesB.floats, rows: batch * time, parameters: p, y: y.floats)
        let yp = y.floats, xp = x.floats
        for i in 0..<n { yp[i] = max(0, yp[i] + xp[i]) }
    }

    /// Back-propagates ``logitsGradient`` (∂loss/∂logits) and accumulates into ``gradients``.
    func backward() {
        let a = net.architecture, b = batch, p = UnsafePointer(parameters), g = gradients.floats
        let t0 = a.windowLength, t1 = net.conv0.outputLength(t0), t2 = net.conv2.outputLength(t1)
        let c2 = a.channels2, k = a.classes, dense = net.denseOffset
        // Dense: dW += pooledᵀ·dlogits, db += Σ dlogits, dpooled = dlogits·Wᵀ.
        cblas_sgemm(CblasRowMajor, CblasTrans, CblasNoTrans, Int32(c2), Int32(k), Int32(b),
                    1, pooled.floats, Int32(c2), logitsGradient.floats, Int32(k), 1, g + dense, Int32(k))
        for n in 0..<b { for j in 0..<k { g[dense + c2 * k + j] += logitsGradient.floats[n * k + j] } }
        cblas_sgemm(CblasRowMajor, CblasNoTrans, CblasTrans, Int32(b), Int32(c2), Int32(k),
                    1, logitsGradient.floats, Int32(k), p + dense, Int32(k), 0, pooledGradient.floats, Int32(c2))
        // Mean pool: every time step gets dpooled / T.
        let inv = 1 / Float(t2)
        for n in 0..<b {
            for t in 0..<t2 {
                let dst = block2OutputGradient.floats + (n * t2 + t) * c2, src = pooledGradient.floats + n * c2
                for c in 0..<c2 { dst[c] = src[c] * inv }
            }
        }
        residualBackward(net.block2a, net.block2b, patchesA: block2aPatches, hidden: block2Hidden, patchesB: block2bPatches,
                         y: block2Output, dy: block2OutputGradient, dHidden: block2HiddenGradient, dx: stage2Gradient, time: t2)
        Self.reluBackward(stage2Gradient.floats, stage2.floats, b * t2 * c2)
        net.conv2.backward(patches: conv2Patches.floats, dy: stage2Gradient.floats, batch: b, time: t1, parameters: p, gradients: g,
                           patchGradients: patchGradients.floats, dx: block1OutputGradient.floats)
        residualBackward(net.block1a, net.block1b, patchesA: block1aPatches, hidden: block1Hidden, patchesB: block1bPatches,
                         y: block1Output, dy: block1OutputGradient, dHidden: block1HiddenGradient, dx: stage1Gradient, time: t1)
        Self.reluBackward(stage1Gradient.floats, stage1.floats, b * t1 * a.channels1)
        net.conv0.backward(patches: conv0Patches.floats, dy: stage1Gradient.floats, batch: b, time: t0, parameters: p, gradients: g,
                           patchGradients: nil, dx: nil)
    }

    /// Zeroes `d` where the ReLU output `y` was 0.
    @inline(__always) static func reluBackward(_ d: UnsafeMutablePointer<Float>, _ y: UnsafePointer<Float>, _ n: Int) {
        for i in 0..<n where y[i] <= 0 { d[i] = 0 }
    }

    /// Backward of ``residual``: `dy` is ∂/∂y (overwritten with ∂/∂(pre-ReLU sum)); writes ∂/∂x.
    private func residualBackward(_ convA: TemporalConv, _ convB: TemporalConv, patchesA: TensorStorage, hidden: TensorStorage,
                                  patchesB: TensorStorage, y: TensorStorage, dy: TensorStorage, dHidden: TensorStorage,
                                  dx: TensorStorage, time: Int) {
        let p = UnsafePointer(parameters), g = gradients.floats, n = batch * time * convA.outputChannels
        Self.reluBackward(dy.floats, y.floats, n)
        convB.backward(patches: patchesB.floats, dy: dy.floats, batch: batch, time: time, parameters: p, gradients: g,
                       patchGradients: patchGradients.floats, dx: dHidden.floats)
        Self.reluBackward(dHidden.floats, hidden.floats, n)
        convA.backward(patches: patchesA.floats, dy: dHidden.floats, batch: batch, time: time, parameters: p, gradients: g,
                       patchGradients: patchGradients.floats, dx: dx.floats)
        let dxp = dx.floats, dyp = dy.floats
        for i in 0..<n { dxp[i] += dyp[i] }  // the skip connection
    }

    static func softmax(_ logits: UnsafePointer<Float>, _ k: Int) -> [Float] {
        var m = -Float.infinity
        for j in 0..<k { m = max(m, logits[j]) }
        var e = (0..<k).map { expf(logits[$0] - m) }
        let s = e.reduce(0, +)
        for j in 0..<k { e[j] /= s }
        return e
    }

    /// Mean softmax cross-entropy of a batch already forwarded; writes ``logitsGradient`` for ``backward()``.
    func crossEntropy(labels: [Int], weights: [Float]? = nil) -> Float {
        let k = net.architecture.classes, b = batch
        var loss: Float = 0
        for n in 0..<b {
            let pr = Self.softmax(logits.floats + n * k, k)
            let wt = (weights?[n] ?? 1) / Float(b)
            loss -= wt * logf(max(pr[labels[n]], 1e-12))
            for j in 0..<k { logitsGradient.floats[n * k + j] = wt * (pr[j] - (j == labels[n] ? 1 : 0)) }
        }
        return loss
    }
}

extension TemporalConvNet {
    /// He-normal weights, zero biases; the second conv of each residual block starts small so the
    /// blocks begin near identity.
    public func initialize(seed: UInt64) {
        var rng = SeededRandom(seed: seed)
        var values = [Float](repeating: 0, count: parameterCount)
        for (layer, gain) in [(conv0, 1.0), (block1a, 1.0), (block1b, 0.1), (conv2, 1.0), (block2a, 1.0), (block2b, 0.1)] {
            let std = gain * (2.0 / Double(layer.patchSize)).squareRoot()
            for i in 0..<layer.weightCount { values[layer.offset + i] = Float(std * rng.gaussian()) }
        }
        let std = (1.0 / Double(architecture.channels2)).squareRoot()
        for i in 0..<(architecture.channels2 * architecture.classes) { values[denseOffset + i] = Float(std * rng.gaussian()) }
        parameterValues = values
    }
}
