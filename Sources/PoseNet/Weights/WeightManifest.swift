/// The JSON manifest of a PoseKit weight bundle (`.pkw`): what network the weights are for,
/// how to feed it, where the weights came from, and where each tensor's bytes are.
///
/// The manifest is plain data; ``WeightBundle`` reads it, ``WeightBundleWriter`` writes it, and
/// the network builder uses ``family``, ``widthMultiplier``, ``blockStrides`` and the tensor
/// shapes to lay the network out. The file layout is documented in `Weights/README.md`.
///
/// ```json
/// { "family": "posenet-mobilenet-v1", "widthMultiplier": 0.75,
///   "blockStrides": [2,1,2,1,2,1,2,1,1,1,1,1,1,1], "outputStride": 16, ...
///   "tensors": [ { "name": "MobilenetV1/Conv2d_0/weights", "dtype": "fp16",
///                  "shape": [3,3,3,24], "layout": "HWIO", "offset": 0, "byteCount": 1296 }, ... ] }
/// ```
public struct WeightManifest: Codable, Sendable, Equatable {
    /// The network family; PoseKit knows ``PoseNetWeightNames/family``.
    public var family: String
    /// MobileNetV1 width multiplier (0.5, 0.75, 1.0): block 0 has `32 × width` channels.
    public var widthMultiplier: Double
    /// Stride of each of the 14 backbone blocks as the architecture defines them (before any
    /// output-stride rewrite): block 0 is the full 3×3 conv, blocks 1–13 depthwise-separable.
    public var blockStrides: [Int]
    /// The output stride the source model was exported at, or 16 (the TF.js default) when the
    /// source does not say; see ``outputStrideIsFromSource``. The network may run at any of
    /// 8/16/32 regardless: PoseNet weights do not depend on it.
    public var outputStride: Int
    /// Whether ``outputStride`` was read from the source model (Core ML: input size vs. output
    /// grid) rather than defaulted.
    public var outputStrideIsFromSource: Bool
    /// How RGB pixels (0…255) become network input.
    public var preprocessing: InputPreprocessing
    /// The file these weights were imported from.
    public var source: Source
    /// Licence of the weights; ship ``License/attribution`` with them.
    public var license: License
    /// Every tensor, in canonical order (``PoseNetWeightNames/canonicalOrder(blockCount:)``).
    public var tensors: [TensorEntry]

    public init(family: String, widthMultiplier: Double, blockStrides: [Int], outputStride: Int,
                outputStrideIsFromSource: Bool, preprocessing: InputPreprocessing, source: Source,
                license: License, tensors: [TensorEntry] = []) {
        self.family = family
        self.widthMultiplier = widthMultiplier
        self.blockStrides = blockStrides
        self.outputStride = outputStride
        self.outputStrideIsFromSource = outputStrideIsFromSource
        self.preprocessing = preprocessing
        self.source = source
        self.license = license
        self.tensors = tensors
    }

    /// Total number of scalars over all tensors.
    public var parameterCount: Int { tensors.reduce(0) { $0 + $1.elementCount } }

    /// Output channels of each of the 14 backbone blocks, read from the tensor shapes
    /// (block 0: `Conv2d_0/weights` axis 3; block i: `Conv2d_i_pointwise/weights` axis 3), or
    /// `nil` when a tensor is missing or not HWIO rank 4.
    public var blockChannels: [Int]? {
        func outputs(_ name: String) -> Int? {
            guard let t = tensors.first(where: { $0.name == name }), t.shape.count == 4 else { return nil }
            return t.shape[3]
        }
        var out: [Int] = []
        for block in 0..<PoseNetWeightNames.blockCount {
            guard let c = outputs(block == 0 ? PoseNetWeightNames.firstConvWeights : PoseNetWeightNames.pointwiseWeights(block)) else { return nil }
            out.append(c)
        }
        return out
    }

    /// The storage types present, e.g. `[.fp16]` or `[.fp16, .fp32]`.
    public var dtypes: [WeightDType] { WeightDType.allCases.filter { d in tensors.contains { $0.dtype == d } } }

    /// Input normalisation: `input[c] = pixel[c] * scale + bias[c]`, pixels 0…255 in RGB order.
    public struct InputPreprocessing: Codable, Sendable, Equatable {
        /// Channel order the first conv expects; always `"RGB"` for PoseNet.
        public var colorOrder: String
        /// Multiplier applied to every 0…255 channel value (PoseNet: 2/255).
        public var scale: Double
        /// Per-channel offset added after scaling, in ``colorOrder`` (PoseNet: −1 each).
        public var bias: [Double]

        public init(colorOrder: String = "RGB", scale: Double, bias: [Double]) {
            self.colorOrder = colorOrder
            self.scale = scale
            self.bias = bias
        }

        /// TF.js PoseNet's MobileNet normalisation, `x * 2/255 - 1`.
        public static let posenetMobileNet = InputPreprocessing(scale: 2.0 / 255.0, bias: [-1, -1, -1])
    }

    /// Where the weights came from.
    public struct Source: Codable, Sendable, Equatable {
        /// File name of the imported model (no directory).
        public var fileName: String
        /// Lower-case hex SHA-256 of the imported file.
        public var sha256: String
        /// `"coreml"` or `"tensorflow-graphdef"`.
        public var format: String
        /// Free-form facts the source file states about itself (Core ML author/licence metadata).
        public var notes: [String: String]

        public init(fileName: String, sha256: String, format: String, notes: [String: String] = [:]) {
            self.fileName = fileName
            self.sha256 = sha256
            self.format = format
            self.notes = notes
        }
    }

    /// Licence and attribution that must travel with the weights.
    public struct License: Codable, Sendable, Equatable {
        /// SPDX identifier, e.g. `"Apache-2.0"`.
        public var spdx: String
        /// Attribution text to reproduce when shipping the weights.
        public var attribution: String

        public init(spdx: String, attribution: String) {
            self.spdx = spdx
            self.attribution = attribution
        }
    }

    /// One tensor: name, storage type, logical shape and layout, and where its bytes are.
    public struct TensorEntry: Codable, Sendable, Equatable {
        /// Canonical name, e.g. `MobilenetV1/Conv2d_3_pointwise/weights`.
        public var name: String
        /// How the values are stored on disk; ``WeightBundle/tensor(named:)`` always returns fp32.
        public var dtype: WeightDType
        /// Logical shape, outermost first.
        public var shape: [Int]
        /// What the axes mean (``TensorLayout``).
        public var layout: TensorLayout
        /// Byte offset from the start of the data section; always a multiple of 64.
        public var offset: Int
        /// Bytes stored: `elementCount × dtype.byteWidth`.
        public var byteCount: Int

        public init(name: String, dtype: WeightDType, shape: [Int], layout: TensorLayout, offset: Int, byteCount: Int) {
            self.name = name
            self.dtype = dtype
            self.shape = shape
            self.layout = layout
            self.offset = offset
            self.byteCount = byteCount
        }

        /// Number of scalars: the product of ``shape``.
        public var elementCount: Int { shape.reduce(1, *) }

        /// Largest tensor a bundle may hold (2³² elements); keeps size arithmetic far from overflow.
        static let maxElements = 1 << 32

        /// The product of `shape`, or `nil` when an axis is not positive or the product exceeds
        /// ``maxElements`` (checked step by step, so hostile shapes cannot overflow).
        package static func checkedElementCount(_ shape: [Int]) -> Int? {
            guard !shape.isEmpty else { return nil }
            var n = 1
            for d in shape {
                guard d > 0, d <= maxElements else { return nil }
                n *= d
                guard n <= maxElements else { return nil }
            }
            return n
        }
    }
}

/// How a tensor's scalars are stored in a bundle.
public enum WeightDType: String, Codable, Sendable, CaseIterable {
    /// IEEE 754 binary16, little-endian (converted to fp32 when a tensor is requested).
    case fp16
    /// IEEE 754 binary32, little-endian.
    case fp32

    /// Bytes per scalar.
    public var byteWidth: Int { self == .fp16 ? 2 : 4 }
}

/// The meaning of a weight tensor's axes (TensorFlow conventions, which PoseKit kernels use).
public enum TensorLayout: String, Codable, Sendable {
    /// Convolution weights `[kernelHeight, kernelWidth, inputChannels, outputChannels]`.
    case hwio = "HWIO"
    /// Depthwise weights `[kernelHeight, kernelWidth, channels, multiplier]` (multiplier 1 here).
    case hwcm = "HWCM"
    /// A per-channel vector `[channels]` (biases).
    case c = "C"
}
