extension Convolution {
    /// k×k convolution for layers with **few output channels** (a segmentation head's 3×3 to one
    /// channel), computed directly with explicit zero padding and fused bias + activation.
    ///
    /// The GEMM kernels vectorise over output channels, so one output channel uses one lane in 16
    /// of the packed GEMM. Here each output value is a dot product instead: a window row is
    /// `kW·Cin` contiguous input floats (NHWC), multiplied with the matching contiguous weights of
    /// `weights` in **OHWI** order (`[Cout, kH, kW, Cin]`), a vector at a time, one horizontal sum
    /// per output value (CKernels' `window_dot`, in the preferred instruction set's copy; the
    /// Swift loop before it spent ~0.4 µs per pixel on pose_landmark_full's 256×256 mask head).
    /// Taps outside the input are left out (zero padding); the output's shape
    /// says how many rows and columns there are. Output rows are split over `threads` cores.
    ///
    /// - Parameters:
    ///   - input: `[H, W, Cin]`.
    ///   - weights: `[Cout, kH, kW, Cin]` (the argument label `weightsOHWI:` names the layout).
    ///   - bias: `[Cout]`, or nil.
    ///   - stride: ≥ 1 (both axes).
    ///   - padTop: zero rows above the input, in `0..<kH`.
    ///   - padLeft: zero columns left of the input, in `0..<kW`.
    ///   - activation: applied after the bias.
    ///   - output: `[outH, outW, Cout]`; must not overlap `input`.
    ///   - threads: how many cores share the output rows.
    /// - Throws: ``TensorError`` when the shapes or the padding do not fit.
    public static func fewChannels(
        _ input: Tensor, weightsOHWI weights: Tensor, bias: Tensor?, stride: Int, padTop: Int, padLeft: Int,
        activation: Activation = .none, into output: Tensor, threads: Int = Parallelism.defaultThreads
    ) throws {
        try fewChannels(input, weightsOHWI: weights, bias: bias, stride: stride, padTop: padTop, padLeft: padLeft,
                        activation: activation, into: output, threads: threads, isa: .preferred)
    }

    /// ``fewChannels(_:weightsOHWI:bias:stride:padTop:padLeft:activation:into:threads:)`` with the
    /// copy of `isa` (one of ``KernelISA/supported``), for tests of each copy.
    static func fewChannels(
        _ input: Tensor, weightsOHWI weights: Tensor, bias: Tensor?, stride: Int, padTop: Int, padLeft: Int,
        activation: Activation, into output: Tensor, threads: Int, isa: KernelISA
    ) throws {
        try input.requireRank(3, "convolution input")
        try weights.requireRank(4, "convolution weights (OHWI)")
        try output.requireRank(3, "convolution output")
        let (h, w, cin) = (input.shape[0], input.shape[1], input.shape[2])
        let (cout, kh, kw) = (weights.shape[0], weights.shape[1], weights.shape[2])
        let (oh, ow) = (output.shape[0], output.shape[1])
        guard weights.shape[3] == cin, output.shape[2] == cout, stride >= 1, (0..<kh).contains(padTop), (0..<kw).contains(padLeft),
              (oh - 1) * stride - padTop < h, (ow - 1) * stride - padLeft < w else {
            throw TensorError.shapeMismatch("convolution of \(input.shape) with OHWI weights \(weights.shape), stride \(stride), padding top \(padTop) left \(padLeft) into \(output.shape)")
        }
        try Tensor.requireBias(bias, channels: cout)
        try output.requireDisjoint(from: input, "convolution output")
        let (low, high) = activation.bounds
        let workers = max(1, min(threads, oh))
        let windowDot = isa.windowDot
        // The output columns whose windows lie inside the image horizontally: one kernel call per row.
        let firstInterior = min(ow, (padLeft + stride - 1) / stride)
        let lastInterior = w - kw + padLeft < 0 ? -1 : (w - kw + padLeft) / stride
        let interior = firstInterior..<max(firstInterior, min(ow, lastInterior + 1))
        withExtendedLifetime((input, weights, bias, output)) {
            let src = input.basePointer, wts = weights.basePointer, biasPointer = bias?.basePointer
            let dst = output.mutableBasePointer
            Parallelism.forEachBand(workers) { worker in
                for oy in Parallelism.bandRange(worker, of: workers, count: oh) {
                    let iy0 = oy * stride - padTop
                    let rows = max(0, -iy0)..<min(kh, h - iy0)
                    // Window row `rows.lowerBound` of pixel ox starts at input column ox·stride − padLeft + first column.
                    let rowStart = src + (iy0 + rows.lowerBound) * w * cin
                    let filterRows = wts + rows.lowerBound * kw * cin
                    func pixels(_ columns: Range<Int>) {
                        guard let ox = columns.first else { return }
                        let ix0 = ox * stride - padLeft
                        let taps = max(0, -ix0)..<min(kw, w - ix0)
                        windowDot(rowStart + (ix0 + taps.lowerBound) * cin, stride * cin, columns.count, w * cin, rows.count,
                                  taps.count * cin, filterRows + taps.lowerBound * cin, kw * cin, kh * kw * cin, cout,
                                  biasPointer, low, high, dst + (oy * ow + ox) * cout)
                    }
                    // Border pixels one by one (their taps differ), the interior in one call.
                    for ox in 0..<interior.lowerBound { pixels(ox..<(ox + 1)) }
                    pixels(interior)
                    for ox in interior.upperBound..<ow { pixels(ox..<(ox + 1)) }
                }
            }
        }
    }
}
