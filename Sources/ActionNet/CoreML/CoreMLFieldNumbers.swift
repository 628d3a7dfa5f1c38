import Protobuf

/// Protobuf field numbers of the Core ML specification, as coremltools' public `Model.proto`,
/// `FeatureTypes.proto` and `NeuralNetwork.proto` (`mlmodel/format/`) define them.
///
/// Only what a Create ML action classifier uses is listed; ``CoreMLModelReader`` refuses the rest
/// by name (`CoreMLLayerKindNames`, shared with the PoseNet importer). Names follow the `.proto` files so each number can be checked there.
enum CoreMLField {
    // Model.proto: Model
    static let specificationVersion = 1, description = 2
    static let pipelineClassifier = 200, pipelineRegressor = 201, pipeline = 202
    static let neuralNetworkClassifier = 403, neuralNetworkRegressor = 404, neuralNetwork = 500
    // ModelDescription
    static let descriptionInput = 1, descriptionOutput = 10, descriptionMetadata = 100
    // FeatureDescription / FeatureType / ArrayFeatureType
    static let featureName = 1, featureType = 3
    static let featureTypeImage = 4, featureTypeMultiArray = 5
    static let arrayShape = 1, arrayDataType = 2
    /// ArrayFeatureType.ArrayDataType values.
    static let arrayFloat32: UInt64 = 65568, arrayDouble: UInt64 = 65600, arrayFloat16: UInt64 = 65552
    // Metadata (and its map<string, string> entries: key 1, value 2)
    static let metadataShortDescription = 1, metadataVersion = 2, metadataAuthor = 3, metadataLicense = 4
    static let metadataUserDefined = 100, mapKey = 1, mapValue = 2

    // NeuralNetworkClassifier (NeuralNetwork shares 1, 2, 5, 6)
    static let networkLayers = 1, networkPreprocessing = 2, arrayInputShapeMapping = 5
    static let stringClassLabels = 100, int64ClassLabels = 101, labelProbabilityLayerName = 200
    static let stringVector = 1
    /// NeuralNetworkMultiArrayShapeMapping: EXACT_ARRAY_MAPPING (inputs keep their own rank).
    static let exactArrayMapping: UInt64 = 1

    // NeuralNetworkLayer
    static let layerName = 1, layerInput = 2, layerOutput = 3
    // WeightParams
    static let weightFloat = 1, weightFloat16 = 2, weightRaw = 30, weightInt8Raw = 31, weightQuantization = 40

    // ConvolutionLayerParams
    static let convOutputChannels = 1, convKernelChannels = 2, convGroups = 10, convKernelSize = 20, convStride = 30
    static let convDilation = 40, convValidPadding = 50, convSamePadding = 51, convIsDeconvolution = 60
    static let convHasBias = 70, convWeights = 90, convBias = 91
    // ValidPadding { BorderAmounts paddingAmounts = 1 }, BorderAmounts { repeated EdgeSizes borderAmounts = 10 },
    // EdgeSizes { startEdgeSize = 1, endEdgeSize = 2 }
    static let validPaddingAmounts = 1, borderAmounts = 10, edgeStart = 1, edgeEnd = 2
    // PoolingLayerParams
    static let poolingType = 1, poolingKernelSize = 10, poolingStride = 20, poolingValid = 30, poolingSame = 31
    static let poolingIncludeLastPixel = 32, poolingAvgExcludePadding = 50, poolingGlobal = 60
    static let poolingMax: UInt64 = 0, poolingAverage: UInt64 = 1
    // ActivationParams (one sub-message per function)
    static let activationLinear = 5, activationReLU = 10
    // BatchnormLayerParams
    static let bnChannels = 1, bnComputeMeanVar = 5, bnInstanceNormalization = 6, bnEpsilon = 10
    static let bnGamma = 15, bnBeta = 16, bnMean = 17, bnVariance = 18
    // PaddingLayerParams: constant { value = 1 } / reflection / replication, paddingAmounts (BorderAmounts)
    static let paddingConstant = 1, paddingReflection = 2, paddingReplication = 3, paddingAmounts = 10
    static let paddingConstantValue = 1
    // AddLayerParams { alpha = 1 }, ConcatLayerParams { sequenceConcat = 100 }
    static let addAlpha = 1, concatSequence = 100
    // The N-D family: one `axis`/`axes` field each (1); SplitND { axis 1, numSplits 2, splitSizes 3 };
    // SqueezeLayerParams { axes 1, squeezeAll 2 }; LoadConstantND { shape 1, data 2 }
    static let ndAxis = 1, splitNumSplits = 2, splitSizes = 3, squeezeAll = 2, constantShape = 1, constantData = 2

    /// The NeuralNetworkLayer `oneof layer` cases this runtime knows, and each kind's name.
    enum Kind: Int, CaseIterable {
        case convolution = 100, pooling = 120, activation = 130, batchnorm = 160, softmax = 175
        case padding = 200, add = 230, concat = 320
        case addBroadcastable = 880, gather = 930, softmaxND = 950, splitND = 975, concatND = 980
        case transpose = 985, getShape = 1065, loadConstantND = 1070, squeeze = 1120, expandDims = 1125
        case reshapeStatic = 1140, reshapeDynamic = 1145
    }

    static func kindName(_ field: Int) -> String { CoreMLLayerKindNames.name(field) }
}
