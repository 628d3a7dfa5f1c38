import Tensor

/// A Core ML 2-D convolution (groups 1, no dilation, explicit zero padding) as one GEMM on
/// Tensor's kernels.
///
/// Core ML stores the weights `[Cout, Cin, kH, kW]` (OIHW, row-major) and applies the kernel to
/// the last three axes `[C, H, W]` of its input (earlier axes are batch), with padding amounts
/// that may differ top and bottom (`borderAmounts`, ordered [H, W]):
/// `H_out = (H + top + bottom − kH) / strideH + 1`, rounded down. Tensor's NHWC convolutions have
/// one stride for both axes and TensorFlow's SAME/VALID padding (an odd pad at the bottom, where
/// Core ML's explicit amounts may put it at the top), so this layer stays in Core ML's layout and
/// computes `out[Cout, P] = W[Cout, K] · columns[K, P] + bias`, with `K = Cin·kH·kW` in the
/// weights' own order and `P = H_out·W_out`: the output comes out `[C, H, W]` with no transposes.
/// `columns` row `(ci, ky, kx)` holds input channel `ci` shifted by the tap (zeros where the window
/// hangs over the padding); for a 1×1 kernel with stride 1 and no padding it is the input itself.
/// The product is Tensor's packed GEMM (``Convolution/pointwise(_:packed:activation:into:skippingZeroChannels:threads:)``,
/// the instruction set chosen at run time) with the weights as its row operand and the columns packed per call.
struct CoreMLConvolution: Sendable {
    let inputChannels: Int, outputChannels: Int
    let kernelHeight: Int, kernelWidth: Int
    let strideY: Int, strideX: Int
    let padTop: Int, padBottom: Int, padLeft: Int, padRight: Int
    /// `[Cout, 1, Cin·kH·kW]`: Core ML's OIHW weights as they are.
    let weights: Tensor
    let bias: [Float]?

    /// - Parameter oihw: Core ML's weights, `outputChannels · inputChannels · kH · kW` values.
    init(inputChannels: Int, outputChannels: Int, kernel: (height: Int, width: Int), stride: (y: Int, x: Int),
         padding: (top: Int, bottom: Int, left: Int, right: Int), oihw: [Float], bias: [Float]?) throws {
        (self.inputChannels, self.outputChannels) = (inputChannels, outputChannels)
        (kernelHeight, kernelWidth) = kernel
        (strideY, strideX) = stride
        (padTop, padBottom, padLeft, padRight) = padding
        weights = try Tensor(shape: [outputChannels, 1, inputChannels * kernel.height * kernel.width], values: oihw)
        self.bias = bias
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
        let k = kernelHeight * kernelWidth * c
        let inPlace = kernelHeight == 1 && kernelWidth == 1 && strideY == 1 && strideX == 1
            && padTop == 0 && padBottom == 0 && padLeft == 0 && padRight == 0
        let positions = oh * ow
        // Every value of `out` and `columns` is written below (im2col writes the padding's zeros
        // itself): no zero fill first.
        var out = [Float](unsafeUninitializedCapacity: batch * outputChannels * positions) { _, n in
            n = batch * outputChannels * positions
        }
        // im2col rows, `K × P`.
        var columns = inPlace ? [] : [Float](unsafeUninitializedCapacity: k * positions) { _, n in n = k * positions }
        let product = try Tensor(zeros: [outputChannels, 1, positions])
        for b in 0..<batch {
            let base = b * c * h * w
            if !inPlace {
                im2col(x.values, base: base, height: h, width: w, outputHeight: oh, outputWidth: ow, into: &columns)
            }
            // The packed GEMM with the weights `[Cout, 1, K]` as its row operand, read in place as
            // Cout rows of K, and the columns (the input itself for a plain 1×1) packed into panels
            // for this call (one pass, as sgemm's packing of them); zero-channel skipping would scan
            // the weights: off.
            let panels = try (inPlace ? x.values : columns).withUnsafeBufferPointer { values in
                try PackedPointwiseWeights(matrix: values.baseAddress! + (inPlace ? base : 0), rows: k, columns: positions, bias: nil)
            }
            try Convolution.pointwise(weights, packed: panels, into: product, skippingZeroChannels: false, threads: threads)
            product.withUnsafeBufferPointer { src in
                out.withUnsafeMutableBufferPointer { dst in
                    let base = b * outputChannels * positions
                    for co in 0..<outputChannels {
                        let add = bias?[co] ?? 0
                        for p in 0..<positions { dst[base + co * positions + p] = src[co * positions + p] + add }
                    }
                }
            }
        }
        return CoreMLArray(shape: Array(x.shape[..<(x.rank - 3)]) + [outputChannels, oh, ow], values: out)
    }

    /// The im2col rows of batch item `base` (its `[C, H, W]` values start there): row
    /// `(ci, ky, kx)` holds input channel `ci` shifted by the tap over the `oh × ow` output
    /// positions. Positions whose tap lands in the padding get zero.
    private func im2col(_ src: [Float], base: Int, height h: Int, width w: Int, outputHeight oh: Int,
                        outputWidth ow: Int, into columns: inout [Float]) {
        let positions = oh * ow
        columns.withUnsafeMutableBufferPointer { cols in
            src.withUnsafeBufferPointer { src in
                for ci in 0..<inputChannels {
                    for ky in 0..<kernelHeight {
                        for kx in 0..<kernelWidth {
                            let row = ((ci * kernelHeight + ky) * kernelWidth + kx) * positions
                            // Output columns whose tap lands inside the input: ix = ox·sx + kx − left in 0..<w.
                            let firstX = max(0, (padLeft - kx + strideX - 1) / strideX)
                            let lastReach = w - 1 + padLeft - kx  // largest ox·sx whose tap is inside
                            let endX = lastReach < 0 ? 0 : min(ow, lastReach / strideX + 1)
                            for oy in 0..<oh {
                                let iy = oy * strideY + ky - padTop
                                let to = cols.baseAddress! + row + oy * ow
                                guard iy >= 0 && iy < h && firstX < endX else {
                                    for ox in 0..<ow { to[ox] = 0 }
                                    continue
                                }
                                let from = base + (ci * h + iy) * w
                                // An element loop: the runs are short (one joint row, 18 floats), where a
                                // library memmove call costs more than the copy.
                                let at = src.baseAddress! + from + kx - padLeft
                                for ox in 0..<firstX { to[ox] = 0 }
                                for ox in firstX..<endX { to[ox] = at[ox * strideX] }
                                for ox in endX..<ow { to[ox] = 0 }
                            }
                        }
                    }
                }
            }
        }
    }
}
