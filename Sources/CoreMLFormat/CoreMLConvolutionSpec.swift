import Protobuf

/// A `ConvolutionLayerParams` as stated in the file, every integer range-checked and the weights
/// read by the one rule (``CoreMLWeights``). Which settings run is the family's: ActionNet runs
/// one group with valid padding, PoseNet's importer TF "same" padding, full and depthwise.
public struct CoreMLConvolutionSpec: Sendable {
    /// How the input is padded.
    public enum Padding: Sendable, Equatable {
        /// Explicit amounts (`ValidPadding`; zeros when absent).
        case valid(top: Int, bottom: Int, left: Int, right: Int)
        /// Computed from the sizes (`SamePadding`); `bottomRightHeavy` is TensorFlow's "SAME".
        case same(bottomRightHeavy: Bool)
    }

    public let outputChannels: Int
    /// Input channels per group (`kernelChannels`).
    public let kernelChannels: Int
    /// Groups; proto3's absent 0 read as 1.
    public let groups: Int
    /// `[kH, kW]` as stored (empty: absent; the family picks the default).
    public let kernelSize: [Int]
    /// `[sH, sW]` as stored (empty: absent).
    public let stride: [Int]
    /// `[dH, dW]` as stored (empty: absent).
    public let dilation: [Int]
    public let padding: Padding
    public let isDeconvolution: Bool
    /// Whether a deconvolution's `outputShape` is given.
    public let hasOutputShape: Bool
    /// OIHW `[outputChannels, kernelChannels, kH, kW]` values, as many as the file holds (the
    /// family checks the count against the kernel it accepts).
    public let weights: CoreMLWeights
    /// `outputChannels` values when `hasBias`, else nil.
    public let bias: CoreMLWeights?

    /// Reads `layer`'s parameters as a convolution.
    public init(_ layer: CoreMLLayerSpec) throws {
        let F = CoreMLField.self
        let maxChannels = CoreMLLayerSpec.maxChannels, maxSize = CoreMLLayerSpec.maxSpatialSize
        let p = layer.parameters
        outputChannels = try layer.integer(F.convOutputChannels, in: 1...maxChannels, "convolution outputChannels")
        kernelChannels = try layer.integer(F.convKernelChannels, in: 1...maxChannels, "convolution kernelChannels")
        // nGroups 0 is proto3's "absent": one group.
        groups = max(try layer.integer(F.convGroups, in: 0...maxChannels, "convolution nGroups"), 1)
        kernelSize = try layer.integers(F.convKernelSize, in: 0...maxSize, "convolution kernelSize")
        stride = try layer.integers(F.convStride, in: 0...maxSize, "convolution stride")
        dilation = try layer.integers(F.convDilation, in: 0...maxSize, "convolution dilationFactor")
        isDeconvolution = try layer.reading { try p.bool(F.convIsDeconvolution) }
        hasOutputShape = try !layer.reading { try p.uints(F.convOutputShape) }.isEmpty
        if let same = try layer.reading({ try p.message(F.convSamePadding) }) {
            guard !p.has(F.convValidPadding) else { throw layer.failure("convolution has both valid and same padding") }
            padding = .same(bottomRightHeavy: try layer.reading { try same.uint(F.samePaddingAsymmetry) } == 0)
        } else {
            let amounts = try layer.borderAmounts(layer.reading { try p.message(F.convValidPadding)?.message(F.validPaddingAmounts) })
            padding = .valid(top: amounts.top, bottom: amounts.bottom, left: amounts.left, right: amounts.right)
        }
        weights = try layer.weights(F.convWeights, "convolution weights")
        if try layer.reading({ try p.bool(F.convHasBias) }) {
            bias = try layer.weights(F.convBias, "convolution bias", count: outputChannels)
        } else {
            bias = nil
        }
    }
}

/// A `BatchnormLayerParams` with stored statistics, as stated in the file: channels range-checked,
/// γ, β, μ, σ² read by the one rule (one value per channel), ε as stored. Batchnorm that computes
/// its own statistics (instance normalization) is refused: no family runs it. Folded into a
/// per-channel affine map (ε and σ² checked) in one place, ``folded(in:)``.
public struct CoreMLBatchnormSpec: Sendable {
    /// The layer's name (for the errors of ``folded(in:)``).
    public let layer: String
    public let channels: Int
    public let epsilon: Float
    public let gamma: CoreMLWeights, beta: CoreMLWeights, mean: CoreMLWeights, variance: CoreMLWeights

    /// Reads `layer`'s parameters as a batchnorm.
    public init(_ layer: CoreMLLayerSpec) throws {
        let F = CoreMLField.self
        let p = layer.parameters
        guard try layer.reading({ try !p.bool(F.bnComputeMeanVar) && !p.bool(F.bnInstanceNormalization) }) else {
            throw layer.failure("batchnorm computing its own mean and variance (instance normalization) is not supported")
        }
        self.layer = layer.name
        let channels = try layer.integer(F.bnChannels, in: 1...CoreMLLayerSpec.maxChannels, "batchnorm channels")
        self.channels = channels
        epsilon = try layer.reading { try p.float(F.bnEpsilon) }
        func column(_ field: Int, _ what: String) throws -> CoreMLWeights {
            let values = try layer.weights(field, "batchnorm \(what)")
            guard values.count == channels else { throw layer.failure("batchnorm \(what) holds \(values.count) values for \(channels) channels") }
            return values
        }
        gamma = try column(F.bnGamma, "gamma")
        beta = try column(F.bnBeta, "beta")
        mean = try column(F.bnMean, "mean")
        variance = try column(F.bnVariance, "variance")
    }
}

extension CoreMLBatchnormSpec {
    /// The arithmetic of a fold (the families differ, and their outputs depend on it).
    public enum FoldArithmetic: Sendable {
        /// Every step in float32: how every PoseNet bundle was made (their bytes depend on it).
        case float32
        /// In double, rounded once to float32, so `x · scale + shift` is as close as one rounding to
        /// γ(x − μ)/√(σ² + ε) + β (ActionNet's Create ML runtime).
        case double
    }

    /// Batchnorm as a per-channel affine map `x · scale[c] + shift[c]`: `scale = γ/√(σ² + ε)`,
    /// `shift = β − μ · scale`, computed in `arithmetic`. The one fold of every Core ML family.
    /// - Throws: `CoreMLFormatError` naming the layer for ε not finite or negative, σ² negative or
    ///   σ² + ε not positive, and a scale or shift that is not finite in float32.
    public func folded(in arithmetic: FoldArithmetic) throws -> (scale: [Float], shift: [Float]) {
        func failure(_ detail: String) -> CoreMLFormatError { CoreMLFormatError(layer: layer, detail) }
        let gamma = self.gamma.values, beta = self.beta.values, mean = self.mean.values, variance = self.variance.values
        guard epsilon.isFinite, epsilon >= 0 else { throw failure("batchnorm epsilon \(epsilon) is not a finite value ≥ 0") }
        if let bad = variance.indices.first(where: { variance[$0] < 0 || Double(variance[$0]) + Double(epsilon) <= 0 }) {
            throw failure("batchnorm variance \(variance[bad]) of channel \(bad) (epsilon \(epsilon)) gives no positive σ² + ε")
        }
        var scale = [Float](repeating: 0, count: channels), shift = scale
        for c in 0..<channels {
            switch arithmetic {
            case .float32:
                scale[c] = gamma[c] / (variance[c] + epsilon).squareRoot()
                shift[c] = beta[c] - mean[c] * scale[c]
            case .double:
                let s = Double(gamma[c]) / (Double(variance[c]) + Double(epsilon)).squareRoot()
                scale[c] = Float(s)
                shift[c] = Float(Double(beta[c]) - Double(mean[c]) * s)
            }
        }
        if let bad = scale.indices.first(where: { !scale[$0].isFinite || !shift[$0].isFinite }) {
            throw failure("batchnorm channel \(bad) folds to scale \(scale[bad]), shift \(shift[bad]): not finite in float32")
        }
        return (scale, shift)
    }
}
