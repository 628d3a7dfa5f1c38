import Tensor

/// A Core ML 2-D convolution (groups 1, no dilation, explicit zero padding) prepared for
/// Tensor's GEMM.
///
/// Core ML stores the weights `[Cout, Cin, kH, kW]` (OIHW, row-major) and applies the kernel to
/// the last three axes `[C, H, W]` of its input (earlier axes are batch), with padding amounts
/// that may differ top and bottom (`borderAmounts`, ordered [H, W]):
/// `H_out = (H + top + bottom − kH) / strideH + 1`, rounded down. Tensor's
/// ``Convolution/general(_:weights:bias:stride:dilation:padding:activation:into:workspace:threads:)``
/// has one stride for both axes and TensorFlow's SAME/VALID padding, which put an odd pad at the
/// bottom where Core ML's explicit amounts may put it at the top; so this layer builds the im2col
/// matrix itself (rows = output positions `(oy, ox)`, columns `(ky, kx, ci)`) and multiplies it
/// with the weights reordered to that `(kH·kW·Cin) × Cout` matrix, bias fused, through
/// ``Convolution/pointwise(_:weights:bias:activation:into:threads:)`` (an sgemm). A 1×1 kernel
/// with stride 1 and no padding reads the channel-last input in place, without im2col.
struct CoreMLConvolution: Sendable {
    let inputChannels: Int, outputChannels: Int
    let kernelHeight: Int, kernelWidth: Int
    let strideY: Int, strideX: Int
    let padTop: Int, padBottom: Int, padLeft: Int, padRight: Int
    /// `[kH·kW·Cin, Cout]`: row `(ky · kW + kx) · Cin + ci`, column `co`.
    let weights: Tensor
    let bias: Tensor?

    /// - Parameter oihw: Core ML's weights, `outputChannels · inputChannels · kH · kW` values.
    init(inputChannels: Int, outputChannels: Int, kernel: (height: Int, width: Int), stride: (y: Int, x: Int),
         padding: (top: Int, bottom: Int, left: Int, right: Int), oihw: [Float], bias: [Float]?) throws {
        (self.inputChannels, self.outputChannels) = (inputChannels, outputChannels)
        (kernelHeight, kernelWidth) = kernel
        (strideY, strideX) = stride
        (padTop, padBottom, padLeft, padRight) = padding
        let taps = kernel.height * kernel.width
        var matrix = [Float](repeating: 0, count: taps * inputChannels * outputChannels)
        for o in 0..<outputChannels {
            for i in 0..<inputChannels {
                for tap in 0..<taps {
                    matrix[(tap * inputChannels + i) * outputChannels + o] = oihw[(o * inputChannels + i) * taps + tap]
                }
            }
        }
        weights = try Tensor(shape: [taps * inputChannels, outputChannels], values: matrix)
        self.bias = try bias.map { try Tensor(shape: [outputChannels], values: $0) }
    }

    /// Multiply-adds one run on a `[.., C, H, W]` input does (for the benchmark's report).
    func multiplyAdds(outputHeight: Int, outputWidth: Int) -> Int {
        outputHeight * outputWidth * kernelHeight * kernelWidth * inputChannels * outputChannels
    }

    /// The output spatial size for an `h × w` input, or nil when the kernel does not fit.
    func outputSize(height h: Int, width w: Int) -> (height: Int, width: Int)? {
        let paddedH = h + padTop + padBottom, paddedW = w + padLeft + padRight
        guard paddedH >= kernelHeight, paddedW >= kernelWidth else { return nil }
        return ((paddedH - kernelHeight) / strideY + 1, (paddedW - kernelWidth) / strideX + 1)
    }

    func run(_ x: CoreMLArray, layer: String, threads: Int) throws -> CoreMLArray {
        guard x.rank >= 4, x.shape[x.rank - 3] == inputChannels else {
            throw CoreMLModelError.layerFailed(layer: layer, detail: "convolution over \(inputChannels) channels got input \(x.shape) (needs [.., \(inputChannels), H, W])")
        }
        let (c, h, w) = (inputChannels, x.shape[x.rank - 2], x.shape[x.rank - 1])
        guard let (oh, ow) = outputSize(height: h, width: w) else {
            throw CoreMLModelError.layerFailed(layer: layer, detail: "\(kernelHeight)x\(kernelWidth) kernel does not fit input \(x.shape) with its padding")
        }
        let batch = x.shape[..<(x.rank - 3)].reduce(1, *)
        let paddedH = h + padTop + padBottom, paddedW = w + padLeft + padRight
        let k = kernelHeight * kernelWidth * c
        let inPlace = kernelHeight == 1 && kernelWidth == 1 && strideY == 1 && strideX == 1
        var out = [Float](repeating: 0, count: batch * outputChannels * oh * ow)
        for b in 0..<batch {
            // Channel-last copy with the padding as zeros: each kernel tap is then Cin contiguous floats.
            var padded = [Float](repeating: 0, count: paddedH * paddedW * c)
            x.values.withUnsafeBufferPointer { src in
                let base = b * c * h * w
                for ci in 0..<c {
                    for y in 0..<h {
                        let row = ((y + padTop) * paddedW + padLeft) * c + ci
                        for xx in 0..<w { padded[row + xx * c] = src[base + (ci * h + y) * w + xx] }
                    }
                }
            }
            var columns = padded
            if !inPlace {
                columns = [Float](repeating: 0, count: oh * ow * k)
                padded.withUnsafeBufferPointer { src in
                    columns.withUnsafeMutableBufferPointer { dst in
                        for oy in 0..<oh {
                            for ox in 0..<ow {
                                var to = (oy * ow + ox) * k
                                for ky in 0..<kernelHeight {
                                    for kx in 0..<kernelWidth {
                                        let from = ((oy * strideY + ky) * paddedW + ox * strideX + kx) * c
                                        dst.baseAddress!.advanced(by: to).update(from: src.baseAddress!.advanced(by: from), count: c)
                                        to += c
                                    }
                                }
                            }
                        }
                    }
                }
            }
            let a = try Tensor(shape: [oh * ow, 1, k], values: columns)
            let product = try Convolution.pointwise(a, weights: weights, bias: bias, threads: threads)
            product.withUnsafeBufferPointer { src in
                let base = b * outputChannels * oh * ow
                for position in 0..<(oh * ow) {
                    for co in 0..<outputChannels { out[base + co * oh * ow + position] = src[position * outputChannels + co] }
                }
            }
        }
        return CoreMLArray(shape: Array(x.shape[..<(x.rank - 3)]) + [outputChannels, oh, ow], values: out)
    }
}
