import COpenBLAS
@_spi(Training) import ActionNet

/// The training form of a ``TemporalConv`` layer on a batch: im2col + one `cblas_sgemm` for the
/// whole batch forward, and the backward pass. Inference uses Tensor's convolution instead
/// (``TemporalConvNet/probabilities(features:)``); the tests check both give the same logits.
///
/// Layouts: activations **NTC** (`[batch, time, channels]`, channel fastest; with `N = 1` the NHWC
/// `[1, T, C]` of inference); weights KIO `[kernel, inputChannels, outputChannels]` (HWIO with
/// `H = 1`), so the im2col row of output step `t` is the `kernel × inputChannels` input patch
/// starting at time `t·stride − padding`, zero outside.
extension TemporalConv {
    /// im2col: `patches[(b·Tout + t), (j·Cin + c)] = x[b, t·stride + j − padding, c]`.
    @_spi(Training) public func im2col(_ x: UnsafePointer<Float>, batch: Int, time: Int, patches: UnsafeMutablePointer<Float>) {
        let tOut = outputLength(time), cin = inputChannels
        for b in 0..<batch {
            for t in 0..<tOut {
                let row = patches + (b * tOut + t) * patchSize
                for j in 0..<kernel {
                    let ti = t * stride + j - padding
                    let dst = row + j * cin
                    if ti < 0 || ti >= time {
                        dst.update(repeating: 0, count: cin)
                    } else {
                        dst.update(from: x + (b * time + ti) * cin, count: cin)
                    }
                }
            }
        }
    }

    /// `y[B·Tout, Cout] = patches · W + bias`.
    @_spi(Training) public func forward(patches: UnsafePointer<Float>, rows: Int, parameters: UnsafePointer<Float>, y: UnsafeMutablePointer<Float>) {
        let bias = parameters + offset + weightCount
        for r in 0..<rows { (y + r * outputChannels).update(from: bias, count: outputChannels) }
        cblas_sgemm(CblasRowMajor, CblasNoTrans, CblasNoTrans, Int32(rows), Int32(outputChannels), Int32(patchSize),
                    1, patches, Int32(patchSize), parameters + offset, Int32(outputChannels), 1, y, Int32(outputChannels))
    }

    /// Accumulates `dW += patchesᵀ·dy`, `db += Σ dy`; when `dx` is given, writes
    /// `dx = col2im(dy·Wᵀ)` using `patchGradients` as scratch.
    @_spi(Training) public func backward(patches: UnsafePointer<Float>, dy: UnsafePointer<Float>, batch: Int, time: Int,
                  parameters: UnsafePointer<Float>, gradients: UnsafeMutablePointer<Float>,
                  patchGradients: UnsafeMutablePointer<Float>?, dx: UnsafeMutablePointer<Float>?) {
        let tOut = outputLength(time), rows = batch * tOut
        cblas_sgemm(CblasRowMajor, CblasTrans, CblasNoTrans, Int32(patchSize), Int32(outputChannels), Int32(rows),
                    1, patches, Int32(patchSize), dy, Int32(outputChannels), 1, gradients + offset, Int32(outputChannels))
        let db = gradients + offset + weightCount
        for r in 0..<rows {
            let row = dy + r * outputChannels
            for c in 0..<outputChannels { db[c] += row[c] }
        }
        guard let dx, let patchGradients else { return }
        cblas_sgemm(CblasRowMajor, CblasNoTrans, CblasTrans, Int32(rows), Int32(patchSize), Int32(outputChannels),
                    1, dy, Int32(outputChannels), parameters + offset, Int32(outputChannels), 0, patchGradients, Int32(patchSize))
        let cin = inputChannels
        dx.update(repeating: 0, count: batch * time * cin)
        for b in 0..<batch {
            for t in 0..<tOut {
                let row = patchGradients + (b * tOut + t) * patchSize
                for j in 0..<kernel {
                    let ti = t * stride + j - padding
                    if ti < 0 || ti >= time { continue }
                    let dst = dx + (b * time + ti) * cin, src = row + j * cin
                    for c in 0..<cin { dst[c] += src[c] }
                }
            }
        }
    }
}
