import Protobuf

/// What ``CoreMLModelReader`` finds in a `.mlmodel` file: the network and the description a
/// Create ML action classifier carries.
struct CoreMLModelContents: Sendable {
    let specificationVersion: Int
    let graph: CoreMLGraph
    let labels: [String]
    /// The input feature's multi-array shape, e.g. [64, 3, 18].
    let inputShape: [Int]
    let metadata: CreateMLActionClassifier.Metadata
}

/// Reads a Core ML `.mlmodel` (protobuf, coremltools' `Model.proto`) holding a
/// `neuralNetworkClassifier` with one multi-array input: a Create ML action classifier.
///
/// The layers (shared with plain `neuralNetwork` models, same field numbers) go through
/// ``CoreMLLayerReader``; the class labels are the classifier's `stringClassLabels`, in output
/// order; the result blob is its `labelProbabilityLayerName`. The input must be EXACT_ARRAY_MAPPING
/// (the model sees the input as given, rank 3) and a float multi-array `[T, 3, 18]`.
struct CoreMLModelReader {
    typealias F = CoreMLField
    let file: String

    func read(_ bytes: [UInt8]) throws -> CoreMLModelContents {
        do {
            return try contents(ProtobufFields(ProtobufMessage(buffer: bytes)))
        } catch let error as ProtobufError {
            throw CoreMLModelError.malformed(file: file, detail: "\(error)")
        }
    }

    private func contents(_ model: ProtobufFields) throws -> CoreMLModelContents {
        let rawVersion = try model.uint(F.specificationVersion)
        guard rawVersion <= Int32.max else {
            throw CoreMLModelError.malformed(file: file, detail: "specification version \(rawVersion) is not an int32")
        }
        let version = Int(rawVersion)
        guard let description = try model.message(F.description), version > 0 else {
            throw CoreMLModelError.malformed(file: file, detail: "no specification version or model description")
        }
        let bodies: [(Int, String)] = [(F.pipelineClassifier, "pipeline classifier"), (F.pipelineRegressor, "pipeline regressor"),
                                       (F.pipeline, "pipeline"), (F.neuralNetworkRegressor, "neural-network regressor"),
                                       (F.neuralNetwork, "neural network without class labels")]
        guard let classifier = try model.message(F.neuralNetworkClassifier) else {
            let found = bodies.first { model.has($0.0) }.map { "a \($0.1)" }
                ?? model.all.map(\.number).filter { $0 >= 200 }.first.map { "model type field \($0)" } ?? "no model body"
            throw CoreMLModelError.notAClassifier(file: file, detail: "\(found); Create ML action classifiers are neuralNetworkClassifier models")
        }
        let labels = try classifier.message(F.stringClassLabels)?.strings(F.stringVector) ?? []
        guard !labels.isEmpty else {
            let detail = classifier.has(F.int64ClassLabels) ? "integer class labels are not supported (string labels only)" : "the classifier has no class labels"
            throw CoreMLModelError.notAClassifier(file: file, detail: detail)
        }
        let (inputName, inputShape) = try input(description)
        guard try classifier.uint(F.arrayInputShapeMapping) == F.exactArrayMapping else {
            throw CoreMLModelError.unsupportedInput(file: file, detail: "only EXACT_ARRAY_MAPPING inputs are supported (the model maps its input to rank 5)")
        }
        let reader = CoreMLLayerReader(file: file)
        let layers = try classifier.messages(F.networkLayers).map(reader.read)
        guard !layers.isEmpty else { throw CoreMLModelError.notAClassifier(file: file, detail: "the network has no layers") }
        guard try classifier.messages(F.networkPreprocessing).isEmpty else {
            throw CoreMLModelError.unsupportedInput(file: file, detail: "input preprocessing is not supported (image models only)")
        }
        let output = try classifier.string(F.labelProbabilityLayerName)
        guard !output.isEmpty else { throw CoreMLModelError.notAClassifier(file: file, detail: "the classifier names no probability layer") }
        let graph = CoreMLGraph(layers: layers, inputName: inputName, outputName: output)
        return CoreMLModelContents(specificationVersion: version, graph: graph, labels: labels, inputShape: inputShape,
                                   metadata: try metadata(description.message(F.descriptionMetadata)))
    }

    /// The one input feature: its name and `[T, 3, 18]` float multi-array shape.
    private func input(_ description: ProtobufFields) throws -> (String, [Int]) {
        let inputs = try description.messages(F.descriptionInput)
        guard inputs.count == 1, let feature = inputs.first else {
            throw CoreMLModelError.unsupportedInput(file: file, detail: "the model has \(inputs.count) inputs; an action classifier has one, [T, 3, 18]")
        }
        let name = try feature.string(F.featureName)
        let type = try feature.message(F.featureType)
        if type?.has(F.featureTypeImage) == true {
            throw CoreMLModelError.notAClassifier(file: file, detail: "input '\(name)' is an image; an action classifier takes poses [T, 3, 18]")
        }
        guard let array = try type?.message(F.featureTypeMultiArray) else {
            throw CoreMLModelError.unsupportedInput(file: file, detail: "input '\(name)' is not a multi-array; an action classifier takes poses [T, 3, 18]")
        }
        let shape = try array.uints(F.arrayShape).map { Int(clamping: $0) }
        guard shape.count == 3, (1...100_000).contains(shape[0]), shape[1] == 3, shape[2] == VisionJoint.allCases.count else {
            throw CoreMLModelError.unsupportedInput(file: file, detail: "input '\(name)' is \(shape), not [T, 3, 18] (T frames of x, y, confidence for Vision's 18 joints)")
        }
        let dataType = try array.uint(F.arrayDataType)
        guard [F.arrayFloat32, F.arrayDouble, F.arrayFloat16].contains(dataType) else {
            throw CoreMLModelError.unsupportedInput(file: file, detail: "input '\(name)' holds integers (data type \(dataType)), not floats")
        }
        return (name, shape)
    }

    private func metadata(_ fields: ProtobufFields?) throws -> CreateMLActionClassifier.Metadata {
        guard let fields else { return .init(shortDescription: "", version: "", author: "", license: "", userDefined: [:]) }
        var userDefined: [String: String] = [:]
        for entry in try fields.messages(F.metadataUserDefined) {
            userDefined[try entry.string(F.mapKey)] = try entry.string(F.mapValue)
        }
        return .init(shortDescription: try fields.string(F.metadataShortDescription), version: try fields.string(F.metadataVersion),
                     author: try fields.string(F.metadataAuthor), license: try fields.string(F.metadataLicense), userDefined: userDefined)
    }
}
