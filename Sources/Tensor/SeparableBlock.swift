/// One MobileNet block as ``Convolution/separable(_:depthwiseWeights:depthwiseBias:stride:dilation:packed:activation:into:workspace:skippingRows:skippingColumns:skippingZeroChannels:threads:)``
/// runs it: a depthwise 3×3 convolution (SAME) + bias + activation, then a 1×1 convolution
/// (weights packed for the GEMM) + bias + the same activation. Two in a row run as one chain
/// (``Convolution/separableChain(_:_:into:workspace:skippingZeroChannels:threads:)``).
public struct SeparableBlock: Sendable {
    /// `[3, 3, C]` (or `[3, 3, C, 1]`).
    public let depthwiseWeights: Tensor
    /// `[C]`, or nil.
    public let depthwiseBias: Tensor?
    /// The depthwise stride (1 or 2) and dilation (≥ 1).
    public let stride: Int, dilation: Int
    /// The 1×1 weights and bias, `C → Cout`.
    public let packed: PackedPointwiseWeights
    /// Applied after each of the two convolutions (ReLU6 in MobileNet).
    public let activation: Activation

    public init(depthwiseWeights: Tensor, depthwiseBias: Tensor?, stride: Int, dilation: Int,
                packed: PackedPointwiseWeights, activation: Activation) {
        self.depthwiseWeights = depthwiseWeights
        self.depthwiseBias = depthwiseBias
        self.stride = stride
        self.dilation = dilation
        self.packed = packed
        self.activation = activation
    }

    /// Depthwise channels (the 1×1 convolution's input channels).
    var channels: Int { packed.inputChannels }

    /// The depthwise window over `input` (`[H, W, C]`), after checking that the block fits it and
    /// that `output` is `[outH, outW, Cout]` and does not overlap it.
    func geometry(input: Tensor, output: Tensor) throws -> ConvolutionGeometry {
        try input.requireRank(3, "separable input")
        let (h, w, c) = (input.shape[0], input.shape[1], input.shape[2])
        guard depthwiseWeights.count == 9 * c, depthwiseWeights.rank >= 3,
              depthwiseWeights.shape[0] == 3, depthwiseWeights.shape[1] == 3, depthwiseWeights.shape[2] == c else {
            throw TensorError.shapeMismatch("depthwise weights must be [3, 3, \(c)] for input \(input.shape), got \(depthwiseWeights.shape)")
        }
        guard stride == 1 || stride == 2 else {
            throw TensorError.unsupported("depthwise stride \(stride); only 1 and 2 are implemented")
        }
        try Tensor.requireBias(depthwiseBias, channels: c)
        guard packed.inputChannels == c else {
            throw TensorError.shapeMismatch("pointwise weights expect \(packed.inputChannels) channels, depthwise gives \(c)")
        }
        let g = try ConvolutionGeometry(
            inputHeight: h, inputWidth: w, kernelHeight: 3, kernelWidth: 3, stride: stride, dilation: dilation, padding: .same)
        try output.requireShape([g.outputHeight, g.outputWidth, packed.outputChannels], "separable output")
        try output.requireDisjoint(from: input, "separable output")
        return g
    }

    /// Floats of one core's depthwise band for the window `g`.
    func bandFloats(_ g: ConvolutionGeometry) -> Int {
        Convolution.separableBandRows(width: g.outputWidth, channels: channels, kernel: packed.kernel) * g.outputWidth * channels
    }
}

/// A ``SeparableBlock`` bound to its input and output buffers: computes runs of output rows on
/// one core, band by band (the depthwise rows into the core's band, then their 1×1 product).
struct SeparableRows {
    let src: UnsafePointer<Float>, wts: UnsafePointer<Float>, bias: UnsafePointer<Float>?
    let dst: UnsafeMutablePointer<Float>
    let g: ConvolutionGeometry
    let c: Int, cout: Int, bandRows: Int
    let low: Float, high: Float
    let packed: PackedPointwiseWeights
    let epilogue: KernelEpilogue
    /// Output columns not computed (empty unless skipping pays, `Convolution.skipsColumns`).
    let skippedColumns: Range<Int>

    /// The caller keeps `block`, `input` and `output` alive while this is used.
    init(_ block: SeparableBlock, _ g: ConvolutionGeometry, input: UnsafePointer<Float>, output: UnsafeMutablePointer<Float>,
         skippingColumns: Range<Int>) {
        (src, dst, self.g) = (input, output, g)
        wts = block.depthwiseWeights.basePointer
        bias = block.depthwiseBias?.basePointer
        (c, cout) = (block.channels, block.packed.outputChannels)
        bandRows = Convolution.separableBandRows(width: g.outputWidth, channels: c, kernel: block.packed.kernel)
        (low, high) = block.activation.bounds
        packed = block.packed
        epilogue = KernelEpilogue(block.activation)
        skippedColumns = skippingColumns
    }

    /// Output rows `run`, in bands of ``bandRows`` through `band` (``SeparableBlock/bandFloats(_:)``
    /// floats). `skipping`: whether the 1×1 products skip zero channels, turned off for this core's
    /// later bands of the layer once a band's sample says it does not pay (Convolution's `packedGEMM`).
    func compute(_ run: Range<Int>, band: UnsafeMutablePointer<Float>, skipping: inout Bool) {
        let ow = g.outputWidth
        var row = run.lowerBound
        while row < run.upperBound {
            let rows = min(bandRows, run.upperBound - row)
            Convolution.depthwiseRows(src, wts, bias, g, c, low, high, outputRows: row..<(row + rows),
                                      skippingColumns: skippedColumns, isa: packed.isa, into: band)
            // Skipped columns: the kept pixels between one row's skipped columns and the next
            // row's are contiguous (the row's right part, the next row's left part): one GEMM
            // each, so a partial tile is wasted once per row, not per part.
            func gemm(_ pixels: Range<Int>) {
                guard !pixels.isEmpty else { return }
                skipping = Convolution.packedGEMM(a: band + pixels.lowerBound * c, m: pixels.count, packed: packed,
                                                  c: dst + (row * ow + pixels.lowerBound) * cout, epilogue: epilogue,
                                                  threads: 1, skippingZeroChannels: skipping)
            }
            var start = 0
            if !skippedColumns.isEmpty {
                for r in 0..<rows {
                    gemm(start..<(r * ow + skippedColumns.lowerBound))
                    start = r * ow + skippedColumns.upperBound
                }
            }
            gemm(start..<(rows * ow))
            row += rows
        }
    }
}
