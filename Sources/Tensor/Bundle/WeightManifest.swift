/// The JSON manifest of a PoseKit weight bundle (`.pkw`): which network the weights are for,
/// where they came from and under which license, the network's own settings, and where each
/// tensor's bytes are. The file layout is documented in `Weights/README.md`.
///
/// The manifest is the same for every network; what only one network needs (PoseNet's width
/// multiplier and input scaling, ActionNet's window length and frame rate) lives in its
/// ``network`` section, which that network's module decodes into its own type with
/// ``section(_:)`` (``kind`` says which module that is):
///
/// ```json
/// { "kind": "posenet", "name": "mobilenet075",
///   "network": { "family": "posenet-mobilenet-v1", "widthMultiplier": 0.75, "outputStride": 16, ... },
///   "source": { "fileName": "...", "sha256": "...", "format": "coreml", "notes": {} },
///   "license": { "spdx": "Apache-2.0", "attribution": "..." },
///   "tensors": [ { "name": "MobilenetV1/Conv2d_0/weights", "dtype": "fp16",
///                  "shape": [3,3,3,24], "layout": "HWIO", "offset": 0, "byteCount": 1296 }, ... ] }
/// ```
///
/// Bundles written before the generic manifest (format version 1, PoseNet only) kept the PoseNet
/// fields at the top level; they decode as `kind` `"posenet"` with those fields as the section.
public struct WeightManifest: Codable, Sendable, Equatable {
    /// Which network the weights are for, e.g. `"posenet"` or `"actionnet"`.
    public var kind: String
    /// A short name for the weights, e.g. `"mobilenet075"`, `"actionnet"`.
    public var name: String
    /// The network's own settings, decoded by its module (``section(_:)``).
    public var network: JSONValue
    /// Where the weights came from.
    public var source: Source
    /// License of the weights; ship ``License/attribution`` with them.
    public var license: License
    /// Every tensor, in the order the writer added them.
    public var tensors: [TensorEntry]

    /// A manifest whose network section is `section` (encoded to JSON).
    public init<Section: Encodable>(kind: String, name: String, section: Section, source: Source, license: License,
                                    tensors: [TensorEntry] = []) throws {
        self.kind = kind
        self.name = name
        self.network = try JSONValue(encoding: section)
        self.source = source
        self.license = license
        self.tensors = tensors
    }

    /// The network section decoded as `Section`.
    ///
    /// - Throws: a `DecodingError` when the section lacks a field `Section` needs.
    public func section<Section: Decodable>(_ type: Section.Type) throws -> Section {
        try network.decode(type)
    }

    /// Replaces the network section with `section`.
    public mutating func setSection<Section: Encodable>(_ section: Section) throws {
        network = try JSONValue(encoding: section)
    }

    /// Total number of scalars over all tensors.
    public var parameterCount: Int { tensors.reduce(0) { $0 + $1.elementCount } }

    /// The storage types present, e.g. `[.fp16]` or `[.fp16, .fp32]`.
    public var dtypes: [WeightDType] { WeightDType.allCases.filter { d in tensors.contains { $0.dtype == d } } }

    enum CodingKeys: String, CodingKey, CaseIterable {
        case kind, name, network, source, license, tensors
    }

    public init(from decoder: Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        source = try container.decode(Source.self, forKey: .source)
        license = try container.decode(License.self, forKey: .license)
        tensors = try container.decode([TensorEntry].self, forKey: .tensors)
        if container.contains(.kind) {
            kind = try container.decode(String.self, forKey: .kind)
            name = try container.decode(String.self, forKey: .name)
            network = try container.decode(JSONValue.self, forKey: .network)
        } else {
            // Format version 1: a PoseNet bundle with its settings at the top level.
            kind = "posenet"
            let whole = try JSONValue(from: decoder)
            guard case .object(var fields) = whole else { throw DecodingError.typeMismatch([String: JSONValue].self, .init(codingPath: [], debugDescription: "manifest is not an object")) }
            for key in ["source", "license", "tensors"] { fields[key] = nil }
            network = .object(fields)
            name = source.fileName
        }
    }

    /// Where the weights came from.
    public struct Source: Codable, Sendable, Equatable {
        /// File name of the imported model or training output (no directory).
        public var fileName: String
        /// Lower-case hex SHA-256 of the imported file (empty when the weights were trained here).
        public var sha256: String
        /// How the weights were made: `"coreml"`, `"tensorflow-graphdef"`, `"posekit-train-actions"`, ...
        public var format: String
        /// Free-form facts the source states about itself (Core ML author/license metadata,
        /// training seed and data).
        public var notes: [String: String]

        public init(fileName: String, sha256: String, format: String, notes: [String: String] = [:]) {
            self.fileName = fileName
            self.sha256 = sha256
            self.format = format
            self.notes = notes
        }
    }

    /// License and attribution that must travel with the weights.
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
        public static let maxElements = 1 << 32

        /// The product of `shape`, or `nil` when an axis is not positive or the product exceeds
        /// ``maxElements`` (checked step by step, so hostile shapes cannot overflow).
        public static func checkedElementCount(_ shape: [Int]) -> Int? {
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
    /// A matrix `[inputs, outputs]` (dense layers).
    case io = "IO"
}
