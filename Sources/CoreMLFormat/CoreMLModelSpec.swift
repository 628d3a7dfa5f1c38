import Protobuf

/// A Core ML `.mlmodel` read as coremltools' `Model.proto` states it: the specification version,
/// the description (inputs, outputs, metadata), the model type, and for a neural network (plain or
/// classifier) its layers (``CoreMLLayerSpec``), image preprocessing and class labels.
///
/// The format's one reader: the families build on it (PoseNet's importer matches PoseNet's
/// MobileNetV1 chain in a `neuralNetwork`; ActionNet runs a Create ML `neuralNetworkClassifier`).
/// It checks what the format fixes (wire format, integer ranges, one kind per layer, weights by
/// ``CoreMLWeights``' rule) and leaves what a family accepts to the family.
///
/// ```swift
/// let spec = try CoreMLModelSpec(bytes: bytes)
/// guard let network = spec.neuralNetwork, network.isClassifier else { ... }
/// for layer in network.layers where layer.kind == .convolution { let conv = try CoreMLConvolutionSpec(layer) }
/// ```
public struct CoreMLModelSpec: Sendable {
    /// `specificationVersion` (an int32 ≥ 0; 0 when absent).
    public let specificationVersion: Int
    /// The model description (nil when absent).
    public let description: CoreMLModelDescription?
    /// The model type's field number (`Model`'s `oneof Type`: 500 neuralNetwork, 403
    /// neuralNetworkClassifier, 200 pipelineClassifier, ...), nil when the model has none.
    public let typeField: Int?
    /// The network of a `neuralNetwork` or `neuralNetworkClassifier` model, else nil.
    public let neuralNetwork: CoreMLNeuralNetwork?

    /// Reads a whole `.mlmodel`.
    ///
    /// - Throws: ``CoreMLFormatError``: broken protobuf (``CoreMLFormatError/isMalformed``), an
    ///   integer out of range, a layer without exactly one kind.
    public init(bytes: [UInt8]) throws {
        let model = try readingProtobuf { try ProtobufFields(ProtobufMessage(buffer: bytes)) }
        let F = CoreMLField.self
        let rawVersion = try readingProtobuf { try model.uint(F.specificationVersion) }
        guard let version = ProtobufFields.checked(rawVersion, in: 0...Int(Int32.max)) else {
            throw CoreMLFormatError("specification version \(rawVersion) is not an int32", malformed: true)
        }
        specificationVersion = version
        description = try readingProtobuf { try model.message(F.description) }.map(CoreMLModelDescription.init)
        typeField = model.all.map(\.number).first { $0 >= 200 }
        if let network = try readingProtobuf({ try model.message(F.neuralNetwork) }) {
            neuralNetwork = try CoreMLNeuralNetwork(network, isClassifier: false)
        } else if let classifier = try readingProtobuf({ try model.message(F.neuralNetworkClassifier) }) {
            neuralNetwork = try CoreMLNeuralNetwork(classifier, isClassifier: true)
        } else {
            neuralNetwork = nil
        }
    }

    /// What the model type is, in words ("a pipeline classifier", "model type field 123", "no model body").
    public var typeDescription: String {
        let names = [CoreMLField.pipelineClassifier: "a pipeline classifier", CoreMLField.pipelineRegressor: "a pipeline regressor",
                     CoreMLField.pipeline: "a pipeline", CoreMLField.neuralNetworkRegressor: "a neural-network regressor",
                     CoreMLField.neuralNetworkClassifier: "a neural-network classifier", CoreMLField.neuralNetwork: "a neural network"]
        guard let typeField else { return "no model body" }
        return names[typeField] ?? "model type field \(typeField)"
    }
}

/// `NeuralNetwork` or `NeuralNetworkClassifier`: the layers in execution order, the image
/// preprocessing, and a classifier's labels and probability blob.
public struct CoreMLNeuralNetwork: Sendable {
    /// Whether the model is a `neuralNetworkClassifier` (403) rather than a plain `neuralNetwork` (500).
    public let isClassifier: Bool
    public let layers: [CoreMLLayerSpec]
    public let preprocessing: [CoreMLImagePreprocessing]
    /// `arrayInputShapeMapping` as stored (``CoreMLField/exactArrayMapping`` or the rank-5 default 0).
    public let arrayInputShapeMapping: UInt64
    /// A classifier's `stringClassLabels`, in output order (empty for none).
    public let stringClassLabels: [String]
    /// Whether a classifier has `int64ClassLabels` instead.
    public let hasInt64ClassLabels: Bool
    /// A classifier's `labelProbabilityLayerName` (empty when absent).
    public let labelProbabilityLayerName: String

    init(_ fields: ProtobufFields, isClassifier: Bool) throws {
        let F = CoreMLField.self
        self.isClassifier = isClassifier
        layers = try readingProtobuf { try fields.messages(F.networkLayers) }.map(CoreMLLayerSpec.init)
        preprocessing = try readingProtobuf { try fields.messages(F.networkPreprocessing).map(CoreMLImagePreprocessing.init) }
        arrayInputShapeMapping = try readingProtobuf { try fields.uint(F.arrayInputShapeMapping) }
        if isClassifier {
            stringClassLabels = try readingProtobuf { try fields.message(F.stringClassLabels)?.strings(F.stringVector) ?? [] }
            labelProbabilityLayerName = try readingProtobuf { try fields.string(F.labelProbabilityLayerName) }
        } else {
            (stringClassLabels, labelProbabilityLayerName) = ([], "")
        }
        hasInt64ClassLabels = isClassifier && fields.has(F.int64ClassLabels)
    }
}

/// One `NeuralNetworkPreprocessing` entry: an image scaler (`x · channelScale + bias`), or a mean image.
public struct CoreMLImagePreprocessing: Sendable {
    public let featureName: String
    /// The scaler's `channelScale` and biases (red, green, blue), when this entry is a scaler.
    public let scaler: (channelScale: Float, redBias: Float, greenBias: Float, blueBias: Float)?
    /// Whether this entry is a mean image (no family runs one).
    public let hasMeanImage: Bool

    init(_ fields: ProtobufFields) throws {
        let F = CoreMLField.self
        featureName = try fields.string(F.preprocessingFeatureName)
        hasMeanImage = fields.has(F.preprocessingMeanImage)
        if let fields = try fields.message(F.preprocessingScaler) {
            scaler = (channelScale: try fields.float(F.scalerChannelScale), redBias: try fields.float(F.scalerRedBias),
                      greenBias: try fields.float(F.scalerGreenBias), blueBias: try fields.float(F.scalerBlueBias))
        } else {
            scaler = nil
        }
    }
}

/// `ModelDescription`: the input and output features and the metadata.
public struct CoreMLModelDescription: Sendable {
    public let inputs: [CoreMLFeature]
    public let outputs: [CoreMLFeature]
    public let metadata: CoreMLMetadata

    init(_ fields: ProtobufFields) throws {
        let F = CoreMLField.self
        inputs = try readingProtobuf { try fields.messages(F.descriptionInput) }.map(CoreMLFeature.init)
        outputs = try readingProtobuf { try fields.messages(F.descriptionOutput) }.map(CoreMLFeature.init)
        metadata = try readingProtobuf { try fields.message(F.descriptionMetadata) }.map(CoreMLMetadata.init) ?? CoreMLMetadata()
    }
}

/// A `FeatureDescription`: a name and its type (the types some family reads).
public struct CoreMLFeature: Sendable {
    public enum FeatureType: Sendable, Equatable {
        /// An image, with its `ColorSpace` as stored (``CoreMLField/colorSpaceRGB``, ...).
        case image(colorSpace: UInt64)
        /// A multi-array: its shape (each size range-checked) and `ArrayDataType` as stored.
        case multiArray(shape: [Int], dataType: UInt64)
        /// Another type (its `FeatureType` field number), or none (nil).
        case other(Int?)
    }

    public let name: String
    public let type: FeatureType

    /// The largest multi-array axis accepted.
    public static let maxArrayAxis = Int(Int32.max)

    init(_ fields: ProtobufFields) throws {
        let F = CoreMLField.self
        name = try readingProtobuf { try fields.string(F.featureName) }
        let type = try readingProtobuf { try fields.message(F.featureType) }
        if let image = try readingProtobuf({ try type?.message(F.featureTypeImage) }) {
            self.type = .image(colorSpace: try readingProtobuf { try image.uint(F.imageColorSpace) })
        } else if let array = try readingProtobuf({ try type?.message(F.featureTypeMultiArray) }) {
            let name = self.name
            let shape = try readingProtobuf { try array.uints(F.arrayShape) }.map { size in
                guard let checked = ProtobufFields.checked(size, in: 0...Self.maxArrayAxis) else {
                    throw CoreMLFormatError("feature '\(name)' has an array size \(size), outside 0...\(Self.maxArrayAxis)")
                }
                return checked
            }
            self.type = .multiArray(shape: shape, dataType: try readingProtobuf { try array.uint(F.arrayDataType) })
        } else {
            self.type = .other(type?.all.first?.number)
        }
    }
}

/// `Metadata`: the free-text fields and the user-defined map.
public struct CoreMLMetadata: Sendable {
    public let shortDescription: String, version: String, author: String, license: String
    public let userDefined: [String: String]

    init() {
        (shortDescription, version, author, license, userDefined) = ("", "", "", "", [:])
    }

    init(_ fields: ProtobufFields) throws {
        let F = CoreMLField.self
        var userDefined: [String: String] = [:]
        for entry in try readingProtobuf({ try fields.messages(F.metadataUserDefined) }) {
            let (key, value) = try readingProtobuf { (try entry.string(F.mapKey), try entry.string(F.mapValue)) }
            userDefined[key] = value
        }
        self.userDefined = userDefined
        (shortDescription, version, author, license) = try readingProtobuf {
            (try fields.string(F.metadataShortDescription), try fields.string(F.metadataVersion),
             try fields.string(F.metadataAuthor), try fields.string(F.metadataLicense))
        }
    }
}
