import CoreMLFormat

/// What ``CoreMLModelReader`` finds in a `.mlmodel` file: the network and the description a
/// Create ML action classifier carries.
struct CoreMLModelContents: Sendable {
    let specificationVersion: Int
    /// The layers in execution order, checked (``CoreMLLayerReader``).
    let layers: [CoreMLLayer]
    /// The blob the model input is stored under (the input feature's name).
    let inputName: String
    /// The blob holding the result (the classifier's `labelProbabilityLayerName`).
    let outputName: String
    let labels: [String]
    /// The input feature's multi-array shape, e.g. [64, 3, 18].
    let inputShape: [Int]
    let metadata: CreateMLActionClassifier.Metadata
}

/// The Create ML family on Core ML's one reader (`CoreMLFormat`'s `CoreMLModelSpec`): a
/// `neuralNetworkClassifier` with one multi-array input, a Create ML action classifier.
///
/// The layers become ``CoreMLLayer``s through ``CoreMLLayerReader`` (and a graph through
/// ``CreateMLGraphMapper``, in ``CreateMLActionClassifier``); the class labels are the
/// classifier's `stringClassLabels`, in output order; the result blob is its
/// `labelProbabilityLayerName`. The input must be EXACT_ARRAY_MAPPING (the model sees the input as
/// given, rank 3) and a float multi-array `[T, 3, 18]`.
struct CoreMLModelReader {
    typealias F = CoreMLField
    let file: String

    func read(_ bytes: [UInt8]) throws -> CoreMLModelContents {
        do {
            return try contents(CoreMLModelSpec(bytes: bytes))
        } catch let error as CoreMLFormatError {
            throw CoreMLModelError(error, file: file)
        }
    }

    private func contents(_ model: CoreMLModelSpec) throws -> CoreMLModelContents {
        guard let description = model.description, model.specificationVersion > 0 else {
            throw CoreMLModelError.malformed(file: file, detail: "no specification version or model description")
        }
        guard let classifier = model.neuralNetwork, classifier.isClassifier else {
            let found = model.typeField == F.neuralNetwork ? "a neural network without class labels" : model.typeDescription
            throw CoreMLModelError.notAClassifier(file: file, detail: "\(found); Create ML action classifiers are neuralNetworkClassifier models")
        }
        let labels = classifier.stringClassLabels
        guard !labels.isEmpty else {
            let detail = classifier.hasInt64ClassLabels ? "integer class labels are not supported (string labels only)" : "the classifier has no class labels"
            throw CoreMLModelError.notAClassifier(file: file, detail: detail)
        }
        let (inputName, inputShape) = try input(description)
        guard classifier.arrayInputShapeMapping == F.exactArrayMapping else {
            throw CoreMLModelError.unsupportedInput(file: file, detail: "only EXACT_ARRAY_MAPPING inputs are supported (the model maps its input to rank 5)")
        }
        let reader = CoreMLLayerReader(file: file)
        let layers = try classifier.layers.map(reader.read)
        guard !layers.isEmpty else { throw CoreMLModelError.notAClassifier(file: file, detail: "the network has no layers") }
        guard classifier.preprocessing.isEmpty else {
            throw CoreMLModelError.unsupportedInput(file: file, detail: "input preprocessing is not supported (image models only)")
        }
        let output = classifier.labelProbabilityLayerName
        guard !output.isEmpty else { throw CoreMLModelError.notAClassifier(file: file, detail: "the classifier names no probability layer") }
        let m = description.metadata
        return CoreMLModelContents(specificationVersion: model.specificationVersion, layers: layers, inputName: inputName,
                                   outputName: output, labels: labels, inputShape: inputShape,
                                   metadata: .init(shortDescription: m.shortDescription, version: m.version, author: m.author,
                                                   license: m.license, userDefined: m.userDefined))
    }

    /// The one input feature: its name and `[T, 3, 18]` float multi-array shape.
    private func input(_ description: CoreMLModelDescription) throws -> (String, [Int]) {
        let inputs = description.inputs
        guard inputs.count == 1, let feature = inputs.first else {
            throw CoreMLModelError.unsupportedInput(file: file, detail: "the model has \(inputs.count) inputs; an action classifier has one, [T, 3, 18]")
        }
        let name = feature.name
        switch feature.type {
        case .image:
            throw CoreMLModelError.notAClassifier(file: file, detail: "input '\(name)' is an image; an action classifier takes poses [T, 3, 18]")
        case .other:
            throw CoreMLModelError.unsupportedInput(file: file, detail: "input '\(name)' is not a multi-array; an action classifier takes poses [T, 3, 18]")
        case .multiArray(let shape, let dataType):
            guard shape.count == 3, (1...100_000).contains(shape[0]), shape[1] == 3, shape[2] == VisionJoint.allCases.count else {
                throw CoreMLModelError.unsupportedInput(file: file, detail: "input '\(name)' is \(shape), not [T, 3, 18] (T frames of x, y, confidence for Vision's 18 joints)")
            }
            guard [F.arrayFloat32, F.arrayDouble, F.arrayFloat16].contains(dataType) else {
                throw CoreMLModelError.unsupportedInput(file: file, detail: "input '\(name)' holds integers (data type \(dataType)), not floats")
            }
            return (name, shape)
        }
    }
}

extension CoreMLModelError {
    /// The Core ML reader's error, naming `file`: broken bytes are `malformed`, a layer's problem
    /// `unsupportedLayer`, the rest of the model `malformed` too (a value the format does not allow).
    init(_ error: CoreMLFormatError, file: String) {
        if let layer = error.layer, !error.isMalformed {
            self = .unsupportedLayer(file: file, layer: layer, detail: error.detail)
        } else {
            self = .malformed(file: file, detail: error.description)
        }
    }
}
