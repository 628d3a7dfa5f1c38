/// How a convolution treats the image border.
public enum Padding: Sendable, Equatable {
    /// TensorFlow "SAME": `out = ceil(in / stride)`; the input is zero-padded by
    /// `max((out - 1) * stride + (k - 1) * dilation + 1 - in, 0)` pixels in total, half before
    /// and half after, the odd extra pixel going to the bottom / right.
    case same
    /// TensorFlow "VALID": no padding, `out = (in - (k - 1) * dilation - 1) / stride + 1`.
    case valid
}

/// Output size and padding of a 2-D convolution along both spatial axes.
///
/// Built once per layer (``init(inputHeight:inputWidth:kernelHeight:kernelWidth:stride:strideWidth:dilation:padding:)``)
/// and shared by the kernels and their naive references, so both agree on the TF padding rule.
public struct ConvolutionGeometry: Sendable, Equatable {
    public let inputHeight: Int, inputWidth: Int
    public let kernelHeight: Int, kernelWidth: Int
    /// The vertical stride, and the horizontal one unless ``strideWidth`` differs (a Create ML
    /// temporal convolution: 2 along time, 1 across joints).
    public let stride: Int
    /// The horizontal stride (``stride`` unless given apart).
    public let strideWidth: Int
    public let dilation: Int
    public let outputHeight: Int, outputWidth: Int
    /// Zero rows added above / columns added left of the input (the bottom / right get the rest).
    public let padTop: Int, padLeft: Int

    /// `strideWidth` nil: `stride` along both axes.
    ///
    /// - Throws: ``TensorError/invalidDimension(_:)`` for non-positive sizes, strides or dilations;
    ///   ``TensorError/shapeMismatch(_:)`` when a VALID convolution's kernel is larger than the input.
    public init(
        inputHeight: Int, inputWidth: Int, kernelHeight: Int, kernelWidth: Int,
        stride: Int = 1, strideWidth: Int? = nil, dilation: Int = 1, padding: Padding = .same
    ) throws {
        let strideWidth = strideWidth ?? stride
        for (name, value) in [("input height", inputHeight), ("input width", inputWidth),
                              ("kernel height", kernelHeight), ("kernel width", kernelWidth),
                              ("stride", stride), ("width stride", strideWidth), ("dilation", dilation)] where value <= 0 {
            throw TensorError.invalidDimension("convolution \(name) is \(value)")
        }
        self.inputHeight = inputHeight; self.inputWidth = inputWidth
        self.kernelHeight = kernelHeight; self.kernelWidth = kernelWidth
        self.stride = stride; self.strideWidth = strideWidth; self.dilation = dilation
        let spanH = (kernelHeight - 1) * dilation + 1, spanW = (kernelWidth - 1) * dilation + 1
        switch padding {
        case .same:
            outputHeight = (inputHeight + stride - 1) / stride
            outputWidth = (inputWidth + strideWidth - 1) / strideWidth
            padTop = max((outputHeight - 1) * stride + spanH - inputHeight, 0) / 2
            padLeft = max((outputWidth - 1) * strideWidth + spanW - inputWidth, 0) / 2
        case .valid:
            guard spanH <= inputHeight, spanW <= inputWidth else {
                throw TensorError.shapeMismatch(
                    "VALID convolution: dilated kernel \(spanH)x\(spanW) exceeds input \(inputHeight)x\(inputWidth)")
            }
            outputHeight = (inputHeight - spanH) / stride + 1
            outputWidth = (inputWidth - spanW) / strideWidth + 1
            padTop = 0; padLeft = 0
        }
    }

    /// The output rows whose windows read only input rows in `rows` (no padding row either).
    ///
    /// When the input rows in `rows` are all equal (a letterbox band of one color, say), these
    /// output rows come out equal too: each is the same computation on the same values. A
    /// network can then compute the first of them and skip the rest (see
    /// ``Convolution/separable(_:depthwiseWeights:depthwiseBias:stride:dilation:packed:activation:into:workspace:skippingRows:skippingColumns:skippingZeroChannels:threads:)``).
    /// Empty when no window fits.
    public func outputRows(readingOnly rows: Range<Int>) -> Range<Int> {
        Self.outputs(readingOnly: rows, input: inputHeight, output: outputHeight, kernel: kernelHeight, pad: padTop,
                     stride: stride, dilation: dilation)
    }

    /// The output columns whose windows read only input columns in `columns`: equal columns in
    /// every row (a letterbox band at the side of a portrait frame) give equal columns.
    public func outputColumns(readingOnly columns: Range<Int>) -> Range<Int> {
        Self.outputs(readingOnly: columns, input: inputWidth, output: outputWidth, kernel: kernelWidth, pad: padLeft,
                     stride: strideWidth, dilation: dilation)
    }

    /// The input rows that output rows `outputRows` read (clamped to the image).
    public func inputRows(readBy outputRows: Range<Int>) -> Range<Int> {
        Self.inputs(readBy: outputRows, input: inputHeight, kernel: kernelHeight, pad: padTop, stride: stride, dilation: dilation)
    }

    /// The input columns that output columns `outputColumns` read (clamped to the image).
    public func inputColumns(readBy outputColumns: Range<Int>) -> Range<Int> {
        Self.inputs(readBy: outputColumns, input: inputWidth, kernel: kernelWidth, pad: padLeft, stride: strideWidth, dilation: dilation)
    }

    // One axis: output position y reads input positions y·stride − pad ... y·stride − pad + (kernel − 1)·dilation.
    private static func outputs(readingOnly band: Range<Int>, input: Int, output: Int, kernel: Int, pad: Int,
                                stride: Int, dilation: Int) -> Range<Int> {
        let low = max(band.lowerBound, 0), high = min(band.upperBound, input)
        let first = min(output, (low + pad + stride - 1) / stride)
        let lastStart = high - 1 - (kernel - 1) * dilation + pad  // the last window start that still fits
        guard lastStart >= 0 else { return first..<first }
        return first..<max(first, min(output, lastStart / stride + 1))
    }

    private static func inputs(readBy outputs: Range<Int>, input: Int, kernel: Int, pad: Int,
                               stride: Int, dilation: Int) -> Range<Int> {
        guard !outputs.isEmpty else { return 0..<0 }
        let low = max(0, outputs.lowerBound * stride - pad)
        let high = min(input, (outputs.upperBound - 1) * stride - pad + (kernel - 1) * dilation + 1)
        return low..<max(low, high)
    }
}

// Shape checks shared by the kernels: one line, descriptive, thrown before any memory access.
extension Tensor {
    func requireRank(_ rank: Int, _ role: String) throws {
        guard shape.count == rank else {
            throw TensorError.shapeMismatch("\(role) must have rank \(rank), got shape \(shape)")
        }
    }

    func requireShape(_ expected: [Int], _ role: String) throws {
        guard shape == expected else {
            throw TensorError.shapeMismatch("\(role) must have shape \(expected), got \(shape)")
        }
    }

    /// Checks that a bias (if any) is a vector of `channels` elements.
    static func requireBias(_ bias: Tensor?, channels: Int) throws {
        guard let bias else { return }
        guard bias.count == channels, bias.rank == 1 else {
            throw TensorError.shapeMismatch("bias must have shape [\(channels)], got \(bias.shape)")
        }
    }

    /// The first element's address (read-only). Valid while `self` (its storage) is alive.
    @inlinable
    var basePointer: UnsafePointer<Float> { UnsafePointer(storage.buffer.baseAddress! + offset) }

    /// The first element's address for writing. Valid while `self` (its storage) is alive.
    @inlinable
    var mutableBasePointer: UnsafeMutablePointer<Float> { storage.buffer.baseAddress! + offset }
}

extension Tensor {
    /// Throws when `self` (an output) shares any element with `other` (an input): the kernels
    /// read inputs while writing outputs, so they must not overlap.
    func requireDisjoint(from other: Tensor, _ role: String) throws {
        guard storage === other.storage else { return }
        let mine = offset..<(offset + count), theirs = other.offset..<(other.offset + other.count)
        guard !mine.overlaps(theirs) else {
            throw TensorError.shapeMismatch("\(role) overlaps its input in memory (in-place is not supported)")
        }
    }
}
