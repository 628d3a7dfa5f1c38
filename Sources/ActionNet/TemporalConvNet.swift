import COpenBLAS
import Foundation

/// The action classifier: a temporal convolution network (TCN) over a window of poses.
///
/// ```
/// input  [T, 51]            17 keypoints × (x, y, score), normalised per window
/// conv   k9 s2 51→C1, ReLU  [T/2, C1]
/// block  x + conv k9(ReLU(conv k9 (x))), ReLU      residual, as in ST-GCN's temporal units
/// conv   k9 s2 C1→C2, ReLU  [T/4, C2]
/// block  residual, C2
/// mean over time            [C2]
/// dense  C2→5               logits (softmax gives the class probabilities)
/// ```
/// Every parameter lives in one flat vector (weights KIO then biases, layer by layer; the dense
/// layer's weights are `[C2, 5]`), which is what the weight file stores and Adam updates.
public final class TemporalConvNet: @unchecked Sendable {
    /// Shape hyper-parameters; stored in the weight file.
    public struct Architecture: Equatable, Sendable, Codable {
        public var windowLength = 60
        public var inputChannels = PoseWindow.channels
        public var channels1 = 32
        public var channels2 = 64
        public var kernel = 9
        public var classes = ActionClass.count
        public init() {}
    }

    public let architecture: Architecture
    let conv0, block1a, block1b, conv2, block2a, block2b: TemporalConv
    let denseOffset: Int
    /// Number of trainable scalars.
    public let parameterCount: Int
    let parameters: FloatBuffer
    let gradients: FloatBuffer
    private var workspace: Workspace?

    public init(architecture: Architecture = Architecture()) throws {
        let a = architecture
        guard a.windowLength >= 4, a.windowLength <= 4096, a.kernel % 2 == 1, a.kernel >= 1, a.kernel <= 31,
              a.channels1 >= 1, a.channels1 <= 1024, a.channels2 >= 1, a.channels2 <= 1024,
              a.inputChannels == PoseWindow.channels, a.classes == ActionClass.count else {
            throw ActionNetError.invalidConfiguration("unsupported classifier architecture \(a)")
        }
        self.architecture = a
        var offset = 0
        func conv(_ i: Int, _ o: Int, stride: Int) -> TemporalConv {
            let c = TemporalConv(inputChannels: i, outputChannels: o, kernel: a.kernel, stride: stride, offset: offset)
            offset += c.parameterCount
            return c
        }
        conv0 = conv(a.inputChannels, a.channels1, stride: 2)
        block1a = conv(a.channels1, a.channels1, stride: 1)
        block1b = conv(a.channels1, a.channels1, stride: 1)
        conv2 = conv(a.channels1, a.channels2, stride: 2)
        block2a = conv(a.channels2, a.channels2, stride: 1)
        block2b = conv(a.channels2, a.channels2, stride: 1)
        denseOffset = offset
        offset += a.channels2 * a.classes + a.classes
        parameterCount = offset
        parameters = FloatBuffer(offset)
        gradients = FloatBuffer(offset)
    }

    /// He-normal weights, zero biases; the second conv of each residual block starts small so the
    /// blocks begin near identity.
    public func initialise(seed: UInt64) {
        var rng = SeededRandom(seed: seed)
        parameters.zero()
        for (layer, gain) in [(conv0, 1.0), (block1a, 1.0), (block1b, 0.1), (conv2, 1.0), (block2a, 1.0), (block2b, 0.1)] {
            let std = gain * (2.0 / Double(layer.patchSize)).squareRoot()
            for i in 0..<layer.weightCount { parameters.pointer[layer.offset + i] = Float(std * rng.gaussian()) }
        }
        let std = (1.0 / Double(architecture.channels2)).squareRoot()
        for i in 0..<(architecture.channels2 * architecture.classes) { parameters.pointer[denseOffset + i] = Float(std * rng.gaussian()) }
    }

    /// The parameters as an array (weight file order).
    public var parameterValues: [Float] {
        get { parameters.array }
        set {
            precondition(newValue.count == parameterCount)
            newValue.withUnsafeBufferPointer { parameters.pointer.update(from: $0.baseAddress!, count: parameterCount) }
        }
    }

    // MARK: Forward and backward

    /// Activation buffers for one batch size (reused across calls).
    final class Workspace {
        let batch: Int
        let input, cols0, a1, cols1a, h1, cols1b, a2, cols2, a3, cols2a, h2, cols2b, a4, pooled, logits: FloatBuffer
        // Gradient scratch.
        let dcols, da4, dh2, da3, da2, dh1, da1, dpooled, dlogits: FloatBuffer

        init(_ net: TemporalConvNet, batch: Int) {
            let a = net.architecture
            let t0 = a.windowLength, t1 = net.conv0.outputLength(t0), t2 = net.conv2.outputLength(t1)
            self.batch = batch
            input = FloatBuffer(batch * t0 * a.inputChannels)
            cols0 = FloatBuffer(batch * t1 * net.conv0.patchSize)
            a1 = FloatBuffer(batch * t1 * a.channels1)
            cols1a = FloatBuffer(batch * t1 * net.block1a.patchSize)
            h1 = FloatBuffer(batch * t1 * a.channels1)
            cols1b = FloatBuffer(batch * t1 * net.block1b.patchSize)
            a2 = FloatBuffer(batch * t1 * a.channels1)
            cols2 = FloatBuffer(batch * t2 * net.conv2.patchSize)
            a3 = FloatBuffer(batch * t2 * a.channels2)
            cols2a = FloatBuffer(batch * t2 * net.block2a.patchSize)
            h2 = FloatBuffer(batch * t2 * a.channels2)
            cols2b = FloatBuffer(batch * t2 * net.block2b.patchSize)
            a4 = FloatBuffer(batch * t2 * a.channels2)
            pooled = FloatBuffer(batch * a.channels2)
            logits = FloatBuffer(batch * a.classes)
            dcols = FloatBuffer(batch * t1 * max(net.block1a.patchSize, net.conv2.patchSize, net.block2a.patchSize))
            da4 = FloatBuffer(a4.count); dh2 = FloatBuffer(h2.count); da3 = FloatBuffer(a3.count)
            da2 = FloatBuffer(a2.count); dh1 = FloatBuffer(h1.count); da1 = FloatBuffer(a1.count)
            dpooled = FloatBuffer(pooled.count); dlogits = FloatBuffer(logits.count)
        }
    }

    func workspace(batch: Int) -> Workspace {
        if let w = workspace, w.batch == batch { return w }
        let w = Workspace(self, batch: batch)
        workspace = w
        return w
    }

    @inline(__always) static func relu(_ p: UnsafeMutablePointer<Float>, _ n: Int) {
        for i in 0..<n where p[i] < 0 { p[i] = 0 }
    }

    /// Runs the network on `batch` windows stored NTC in `w.input`; logits land in `w.logits`.
    func forward(_ w: Workspace) {
        let a = architecture, b = w.batch, p = UnsafePointer(parameters.pointer)
        let t0 = a.windowLength, t1 = conv0.outputLength(t0), t2 = conv2.outputLength(t1)
        conv0.im2col(w.input.pointer, batch: b, time: t0, cols: w.cols0.pointer)
        conv0.forward(cols: w.cols0.pointer, rows: b * t1, parameters: p, y: w.a1.pointer)
        Self.relu(w.a1.pointer, b * t1 * a.channels1)
        residual(block1a, block1b, x: w.a1, colsA: w.cols1a, h: w.h1, colsB: w.cols1b, y: w.a2, batch: b, time: t1)
        conv2.im2col(w.a2.pointer, batch: b, time: t1, cols: w.cols2.pointer)
        conv2.forward(cols: w.cols2.pointer, rows: b * t2, parameters: p, y: w.a3.pointer)
        Self.relu(w.a3.pointer, b * t2 * a.channels2)
        residual(block2a, block2b, x: w.a3, colsA: w.cols2a, h: w.h2, colsB: w.cols2b, y: w.a4, batch: b, time: t2)
        // Global average pool over time, then the dense layer.
        let c2 = a.channels2, inv = 1 / Float(t2)
        w.pooled.zero()
        for n in 0..<b {
            let dst = w.pooled.pointer + n * c2
            for t in 0..<t2 {
                let src = w.a4.pointer + (n * t2 + t) * c2
                for c in 0..<c2 { dst[c] += src[c] }
            }
            for c in 0..<c2 { dst[c] *= inv }
        }
        let k = a.classes, bias = p + denseOffset + c2 * k
        for n in 0..<b { (w.logits.pointer + n * k).update(from: bias, count: k) }
        cblas_sgemm(CblasRowMajor, CblasNoTrans, CblasNoTrans, Int32(b), Int32(k), Int32(c2),
                    1, w.pooled.pointer, Int32(c2), p + denseOffset, Int32(k), 1, w.logits.pointer, Int32(k))
    }

    /// `y = ReLU(x + convB(ReLU(convA(x))))`.
    private func residual(_ convA: TemporalConv, _ convB: TemporalConv, x: FloatBuffer, colsA: FloatBuffer, h: FloatBuffer,
                          colsB: FloatBuffer, y: FloatBuffer, batch: Int, time: Int) {
        let p = UnsafePointer(parameters.pointer), n = batch * time * convA.outputChannels
        convA.im2col(x.pointer, batch: batch, time: time, cols: colsA.pointer)
        convA.forward(cols: colsA.pointer, rows: batch * time, parameters: p, y: h.pointer)
        Self.relu(h.pointer, n)
        convB.im2col(h.pointer, batch: batch, time: time, cols: colsB.pointer)
        convB.forward(cols: colsB.pointer, rows: batch * time, parameters: p, y: y.pointer)
        for i in 0..<n { y.pointer[i] = max(0, y.pointer[i] + x.pointer[i]) }
    }

    /// Back-propagates `w.dlogits` (∂loss/∂logits) and accumulates into ``gradients``.
    func backward(_ w: Workspace) {
        let a = architecture, b = w.batch, p = UnsafePointer(parameters.pointer), g = gradients.pointer
        let t0 = a.windowLength, t1 = conv0.outputLength(t0), t2 = conv2.outputLength(t1)
        let c2 = a.channels2, k = a.classes
        // Dense: dW += pooledᵀ·dlogits, db += Σ dlogits, dpooled = dlogits·Wᵀ.
        cblas_sgemm(CblasRowMajor, CblasTrans, CblasNoTrans, Int32(c2), Int32(k), Int32(b),
                    1, w.pooled.pointer, Int32(c2), w.dlogits.pointer, Int32(k), 1, g + denseOffset, Int32(k))
        for n in 0..<b { for j in 0..<k { g[denseOffset + c2 * k + j] += w.dlogits.pointer[n * k + j] } }
        cblas_sgemm(CblasRowMajor, CblasNoTrans, CblasTrans, Int32(b), Int32(c2), Int32(k),
                    1, w.dlogits.pointer, Int32(k), p + denseOffset, Int32(k), 0, w.dpooled.pointer, Int32(c2))
        // Mean pool: every time step gets dpooled / T.
        let inv = 1 / Float(t2)
        for n in 0..<b {
            for t in 0..<t2 {
                let dst = w.da4.pointer + (n * t2 + t) * c2, src = w.dpooled.pointer + n * c2
                for c in 0..<c2 { dst[c] = src[c] * inv }
            }
        }
        residualBackward(block2a, block2b, x: w.a3, colsA: w.cols2a, h: w.h2, colsB: w.cols2b, y: w.a4,
                         dy: w.da4, dh: w.dh2, dx: w.da3, batch: b, time: t2)
        Self.reluBackward(w.da3.pointer, w.a3.pointer, b * t2 * c2)
        conv2.backward(cols: w.cols2.pointer, dy: w.da3.pointer, batch: b, time: t1, parameters: p, gradients: g,
                       dcols: w.dcols.pointer, dx: w.da2.pointer)
        residualBackward(block1a, block1b, x: w.a1, colsA: w.cols1a, h: w.h1, colsB: w.cols1b, y: w.a2,
                         dy: w.da2, dh: w.dh1, dx: w.da1, batch: b, time: t1)
        Self.reluBackward(w.da1.pointer, w.a1.pointer, b * t1 * a.channels1)
        conv0.backward(cols: w.cols0.pointer, dy: w.da1.pointer, batch: b, time: t0, parameters: p, gradients: g,
                       dcols: nil, dx: nil)
    }

    /// Zeroes `d` where the ReLU output `y` was 0.
    @inline(__always) static func reluBackward(_ d: UnsafeMutablePointer<Float>, _ y: UnsafePointer<Float>, _ n: Int) {
        for i in 0..<n where y[i] <= 0 { d[i] = 0 }
    }

    /// Backward of ``residual``: `dy` is ∂/∂y (overwritten with ∂/∂(pre-ReLU sum)); writes ∂/∂x.
    private func residualBackward(_ convA: TemporalConv, _ convB: TemporalConv, x: FloatBuffer, colsA: FloatBuffer, h: FloatBuffer,
                                  colsB: FloatBuffer, y: FloatBuffer, dy: FloatBuffer, dh: FloatBuffer, dx: FloatBuffer,
                                  batch: Int, time: Int) {
        let p = UnsafePointer(parameters.pointer), g = gradients.pointer, n = batch * time * convA.outputChannels
        Self.reluBackward(dy.pointer, y.pointer, n)
        let dcols = workspace(batch: batch).dcols.pointer
        convB.backward(cols: colsB.pointer, dy: dy.pointer, batch: batch, time: time, parameters: p, gradients: g,
                       dcols: dcols, dx: dh.pointer)
        Self.reluBackward(dh.pointer, h.pointer, n)
        convA.backward(cols: colsA.pointer, dy: dh.pointer, batch: batch, time: time, parameters: p, gradients: g,
                       dcols: dcols, dx: dx.pointer)
        for i in 0..<n { dx.pointer[i] += dy.pointer[i] }  // the skip connection
    }

    // MARK: Public inference

    /// Class probabilities for one window's features (``PoseWindow/features()``, `[T, 51]`).
    public func probabilities(features: [Float]) -> [Double] {
        let w = workspace(batch: 1)
        precondition(features.count == architecture.windowLength * architecture.inputChannels, "feature size")
        features.withUnsafeBufferPointer { w.input.pointer.update(from: $0.baseAddress!, count: features.count) }
        forward(w)
        return Self.softmax(w.logits.pointer, architecture.classes).map(Double.init)
    }

    static func softmax(_ logits: UnsafePointer<Float>, _ k: Int) -> [Float] {
        var m = -Float.infinity
        for j in 0..<k { m = max(m, logits[j]) }
        var e = (0..<k).map { expf(logits[$0] - m) }
        let s = e.reduce(0, +)
        for j in 0..<k { e[j] /= s }
        return e
    }

    /// Mean softmax cross-entropy of a batch already forwarded; writes `dlogits` for ``backward``.
    func crossEntropy(_ w: Workspace, labels: [Int], weights: [Float]? = nil) -> Float {
        let k = architecture.classes, b = w.batch
        var loss: Float = 0
        for n in 0..<b {
            let pr = Self.softmax(w.logits.pointer + n * k, k)
            let wt = (weights?[n] ?? 1) / Float(b)
            loss -= wt * logf(max(pr[labels[n]], 1e-12))
            for j in 0..<k { w.dlogits.pointer[n * k + j] = wt * (pr[j] - (j == labels[n] ? 1 : 0)) }
        }
        return loss
    }
}
