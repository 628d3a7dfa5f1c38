/// Protobuf field numbers of the Core ML specification, as coremltools' public `Model.proto`,
/// `FeatureTypes.proto` and `NeuralNetwork.proto` (`mlmodel/format/`) define them: the one list
/// for every Core ML reader (``CoreMLModelSpec`` and the families on it: PoseNet's importer,
/// ActionNet's Create ML classifiers). Names follow the `.proto` files so each number can be
/// checked there.
public enum CoreMLField {
    // Model.proto: Model
    public static let specificationVersion = 1, description = 2
    public static let pipelineClassifier = 200, pipelineRegressor = 201, pipeline = 202
    public static let neuralNetworkClassifier = 403, neuralNetworkRegressor = 404, neuralNetwork = 500
    // ModelDescription
    public static let descriptionInput = 1, descriptionOutput = 10, descriptionMetadata = 100
    // FeatureDescription / FeatureType / ArrayFeatureType / ImageFeatureType
    public static let featureName = 1, featureType = 3
    public static let featureTypeImage = 4, featureTypeMultiArray = 5
    public static let arrayShape = 1, arrayDataType = 2
    /// ArrayFeatureType.ArrayDataType values.
    public static let arrayFloat32: UInt64 = 65568, arrayDouble: UInt64 = 65600, arrayFloat16: UInt64 = 65552
    public static let imageColorSpace = 3
    /// ImageFeatureType.ColorSpace values.
    public static let colorSpaceGray: UInt64 = 10, colorSpaceRGB: UInt64 = 20, colorSpaceBGR: UInt64 = 30
    // Metadata (and its map<string, string> entries: key 1, value 2)
    public static let metadataShortDescription = 1, metadataVersion = 2, metadataAuthor = 3, metadataLicense = 4
    public static let metadataUserDefined = 100, mapKey = 1, mapValue = 2

    // NeuralNetwork / NeuralNetworkClassifier (the classifier shares 1, 2, 5, 6)
    public static let networkLayers = 1, networkPreprocessing = 2, arrayInputShapeMapping = 5
    public static let stringClassLabels = 100, int64ClassLabels = 101, labelProbabilityLayerName = 200
    public static let stringVector = 1
    /// NeuralNetworkMultiArrayShapeMapping: EXACT_ARRAY_MAPPING (inputs keep their own rank).
    public static let exactArrayMapping: UInt64 = 1
    // NeuralNetworkPreprocessing { featureName 1, oneof { scaler 10, meanImage 11 } }, NeuralNetworkImageScaler
    public static let preprocessingFeatureName = 1, preprocessingScaler = 10, preprocessingMeanImage = 11
    public static let scalerChannelScale = 10, scalerBlueBias = 20, scalerGreenBias = 21, scalerRedBias = 22

    // NeuralNetworkLayer
    public static let layerName = 1, layerInput = 2, layerOutput = 3
    // WeightParams
    public static let weightFloat = 1, weightFloat16 = 2, weightRaw = 30, weightInt8Raw = 31, weightQuantization = 40

    // ConvolutionLayerParams
    public static let convOutputChannels = 1, convKernelChannels = 2, convGroups = 10, convKernelSize = 20, convStride = 30
    public static let convDilation = 40, convValidPadding = 50, convSamePadding = 51, convIsDeconvolution = 60
    public static let convHasBias = 70, convWeights = 90, convBias = 91, convOutputShape = 100
    /// SamePadding { asymmetryMode = 1 }: 0 is BOTTOM_RIGHT_HEAVY (TensorFlow's "SAME").
    public static let samePaddingAsymmetry = 1
    // ValidPadding { BorderAmounts paddingAmounts = 1 }, BorderAmounts { repeated EdgeSizes borderAmounts = 10 },
    // EdgeSizes { startEdgeSize = 1, endEdgeSize = 2 }
    public static let validPaddingAmounts = 1, borderAmounts = 10, edgeStart = 1, edgeEnd = 2
    // PoolingLayerParams
    public static let poolingType = 1, poolingKernelSize = 10, poolingStride = 20, poolingValid = 30, poolingSame = 31
    public static let poolingIncludeLastPixel = 32, poolingAvgExcludePadding = 50, poolingGlobal = 60
    public static let poolingMax: UInt64 = 0, poolingAverage: UInt64 = 1
    // ActivationParams (one sub-message per function); ActivationLinear { alpha 1, beta 2 }
    public static let activationLinear = 5, activationReLU = 10, activationSigmoid = 40
    public static let linearAlpha = 1, linearBeta = 2
    // UnaryFunctionLayerParams { type 1, alpha 2, epsilon 3, shift 4, scale 5 }; type THRESHOLD = 7
    public static let unaryType = 1, unaryAlpha = 2, unaryShift = 4, unaryScale = 5
    public static let unaryThreshold: UInt64 = 7
    // BatchnormLayerParams
    public static let bnChannels = 1, bnComputeMeanVar = 5, bnInstanceNormalization = 6, bnEpsilon = 10
    public static let bnGamma = 15, bnBeta = 16, bnMean = 17, bnVariance = 18
    // PaddingLayerParams: constant { value = 1 } / reflection / replication, paddingAmounts (BorderAmounts)
    public static let paddingConstant = 1, paddingReflection = 2, paddingReplication = 3, paddingAmounts = 10
    public static let paddingConstantValue = 1
    // AddLayerParams { alpha = 1 }, ConcatLayerParams { sequenceConcat = 100 }
    public static let addAlpha = 1, concatSequence = 100
    // The N-D family: one `axis`/`axes` field each (1); SplitND { axis 1, numSplits 2, splitSizes 3 };
    // SqueezeLayerParams { axes 1, squeezeAll 2 }; LoadConstantND { shape 1, data 2 }
    public static let ndAxis = 1, splitNumSplits = 2, splitSizes = 3, squeezeAll = 2, constantShape = 1, constantData = 2

    /// The NeuralNetworkLayer `oneof layer` cases some family reads (the field number is the kind);
    /// ``CoreMLLayerKindNames`` names every kind, read or not.
    public enum Kind: Int, CaseIterable, Sendable {
        case convolution = 100, pooling = 120, activation = 130, batchnorm = 160, softmax = 175
        case padding = 200, unary = 220, add = 230, concat = 320
        case addBroadcastable = 880, gather = 930, softmaxND = 950, splitND = 975, concatND = 980
        case transpose = 985, getShape = 1065, loadConstantND = 1070, squeeze = 1120, expandDims = 1125
        case reshapeStatic = 1140, reshapeDynamic = 1145

        /// The kind's name in `NeuralNetwork.proto` (`convolution`, `splitND`, ...).
        public var name: String { CoreMLLayerKindNames.name(rawValue) }
    }
}
