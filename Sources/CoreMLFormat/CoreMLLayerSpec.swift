import Protobuf

/// One `NeuralNetworkLayer` as the file states it: its name, blobs, kind and the kind's parameter
/// message, with range-checked readers for the parameters every family needs.
///
/// The reader checks that a layer holds exactly one kind; what a kind's parameters mean and which
/// kinds run is the family's (ActionNet's `CoreMLLayerReader`, PoseNet's importer). Every integer
/// becomes an `Int` only through ``integer(_:of:in:_:)`` / ``integers(_:of:in:_:)`` (or
/// `ProtobufFields.uint(_:in:)` / `checked(_:in:)`), never `Int(_:)`: a varint may be 2^64 − 1.
public struct CoreMLLayerSpec: Sendable {
    public let name: String
    /// Blob names read, in order.
    public let inputs: [String]
    /// Blob names written, in order.
    public let outputs: [String]
    /// The `oneof layer` field number: the layer's kind.
    public let kindField: Int
    /// The kind's parameter message (`ConvolutionLayerParams`, `ActivationParams`, ...).
    public let parameters: ProtobufFields

    /// Channel counts a layer may declare (PoseNet's widest layer has 1024).
    public static let maxChannels = 1 << 16
    /// Kernel sizes, strides, dilations and padding amounts.
    public static let maxSpatialSize = 4096

    /// The kind, when some family reads it.
    public var kind: CoreMLField.Kind? { CoreMLField.Kind(rawValue: kindField) }
    /// The kind's name in `NeuralNetwork.proto`, or `layer kind N`.
    public var kindName: String { CoreMLLayerKindNames.name(kindField) }

    /// Decodes `fields` (one `NeuralNetworkLayer`).
    init(_ fields: ProtobufFields) throws {
        name = try readingProtobuf { try fields.string(CoreMLField.layerName) }
        let layerName = name
        (inputs, outputs) = try readingProtobuf(layer: layerName) {
            (try fields.strings(CoreMLField.layerInput), try fields.strings(CoreMLField.layerOutput))
        }
        // The `oneof layer` is the one field at number ≥ 100 (below are name, blobs, tensor ranks, isUpdatable).
        let kinds = fields.all.filter { $0.number >= 100 }
        guard kinds.count == 1, let kind = kinds.first else {
            throw CoreMLFormatError(layer: name, kinds.isEmpty ? "layer has no kind" : "layer has \(kinds.count) kinds")
        }
        guard case .bytes(let range) = kind.value else {
            throw CoreMLFormatError(layer: name, "layer kind \(CoreMLLayerKindNames.name(kind.number)) is not a message", malformed: true)
        }
        kindField = kind.number
        parameters = try readingProtobuf(layer: layerName) { try ProtobufFields(fields.message.message(range)) }
    }

    /// An error about this layer.
    public func failure(_ detail: String) -> CoreMLFormatError { CoreMLFormatError(layer: name, detail) }

    /// Runs `body`, naming this layer in the reader's errors (wire errors and layer-less ones).
    public func reading<T>(_ body: () throws -> T) throws -> T {
        do { return try body() } catch let error as ProtobufError {
            throw CoreMLFormatError(error, layer: name)
        } catch let error as CoreMLFormatError where error.layer == nil {
            throw CoreMLFormatError(layer: name, error.detail, malformed: error.isMalformed)
        }
    }

    /// The varint in `field` of `message` (default: ``parameters``) as an `Int` in `allowed`
    /// (absent: 0), or this layer's one-line error naming `what`.
    public func integer(_ field: Int, of message: ProtobufFields? = nil, in allowed: ClosedRange<Int>, _ what: String) throws -> Int {
        let value = try reading { try (message ?? parameters).uint(field) }
        guard let result = ProtobufFields.checked(value, in: allowed) else {
            throw failure("\(what) \(value) is outside \(allowed.lowerBound)...\(allowed.upperBound)")
        }
        return result
    }

    /// Every integer of repeated `field` (packed or not), each in `allowed` (as ``integer(_:of:in:_:)``).
    public func integers(_ field: Int, of message: ProtobufFields? = nil, in allowed: ClosedRange<Int>, _ what: String) throws -> [Int] {
        try reading { try (message ?? parameters).uints(field) }.map { value in
            guard let result = ProtobufFields.checked(value, in: allowed) else {
                throw failure("\(what) \(value) is outside \(allowed.lowerBound)...\(allowed.upperBound)")
            }
            return result
        }
    }

    /// The `WeightParams` in `field` of ``parameters`` (``CoreMLWeights``: the one fp16 rule),
    /// holding exactly `count` values when `count` is given.
    public func weights(_ field: Int, _ what: String, count: Int? = nil) throws -> CoreMLWeights {
        let weights = try reading { try CoreMLWeights.read(parameters.message(field), what: what) }
        if let count, weights.count != count {
            throw failure("\(what) hold \(weights.count) values, expected \(count)")
        }
        return weights
    }

    /// A `BorderAmounts` message ([H edges, W edges]) as (top, bottom, left, right); absent: no padding.
    public func borderAmounts(_ amounts: ProtobufFields?) throws -> (top: Int, bottom: Int, left: Int, right: Int) {
        guard let amounts else { return (0, 0, 0, 0) }
        let edges = try reading { try amounts.messages(CoreMLField.borderAmounts) }
        if edges.isEmpty { return (0, 0, 0, 0) }
        guard edges.count == 2 else { throw failure("padding amounts for \(edges.count) axes, expected 2 ([H, W])") }
        var sizes: [Int] = []
        for edge in edges {
            for field in [CoreMLField.edgeStart, CoreMLField.edgeEnd] {
                sizes.append(try integer(field, of: edge, in: 0...Self.maxSpatialSize, "padding amount"))
            }
        }
        return (sizes[0], sizes[1], sizes[2], sizes[3])
    }
}
