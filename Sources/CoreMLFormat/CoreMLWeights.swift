import Protobuf
import Tensor

/// A `WeightParams` message as float32 values: the one rule for Core ML weights, whoever reads them.
///
/// - `floatValue` (field 1): float32, packed or not, taken as stored.
/// - `float16Value` (field 2): little-endian IEEE halves, widened exactly to float32
///   (`HalfPrecision`: every half is a float32, subnormals included), remembered as ``Storage/float16``
///   so an importer can store them as fp16 again without loss.
/// - One of the two, not both; quantized, int8 and raw bytes are refused by name.
/// - Every value finite: one NaN or infinity would make every output NaN (a label with null
///   probabilities, a pose nowhere), so it is refused at load, naming the index.
public struct CoreMLWeights: Sendable, Equatable {
    /// How the file stored the values.
    public enum Storage: Sendable, Equatable { case float32, float16 }

    /// The values, in the file's order.
    public let values: [Float]
    /// How the file stored them.
    public let storage: Storage

    public var count: Int { values.count }

    /// Reads `message` (nil: absent); `what` names the parameter in errors ("convolution weights").
    ///
    /// - Throws: ``CoreMLFormatError`` (without a layer: the caller's layer adds its name).
    public static func read(_ message: ProtobufFields?, what: String) throws -> CoreMLWeights {
        guard let message else { throw CoreMLFormatError("\(what) missing") }
        for (field, kind) in [(CoreMLField.weightRaw, "raw"), (CoreMLField.weightInt8Raw, "int8"), (CoreMLField.weightQuantization, "quantized")]
        where message.has(field) {
            throw CoreMLFormatError("\(what) stored as \(kind) values are not supported (float32 or float16 only)")
        }
        let weights: CoreMLWeights
        if let half = try readingProtobuf({ try message.bytes(CoreMLField.weightFloat16) }) {
            guard !message.has(CoreMLField.weightFloat) else {
                throw CoreMLFormatError("\(what) hold both float32 and float16 values")
            }
            guard half.count % 2 == 0 else { throw CoreMLFormatError("\(what) hold \(half.count) bytes of float16, an odd number") }
            var values = [Float](repeating: 0, count: half.count / 2)
            if !values.isEmpty { message.message.buffer.withUnsafeBytes { raw in
                values.withUnsafeMutableBufferPointer { HalfPrecision.convert(raw.baseAddress! + half.lowerBound, count: $0.count, into: $0.baseAddress!) }
            } }
            weights = CoreMLWeights(values: values, storage: .float16)
        } else {
            weights = CoreMLWeights(values: try readingProtobuf { try message.floats(CoreMLField.weightFloat) }, storage: .float32)
        }
        if let bad = weights.values.firstIndex(where: { !$0.isFinite }) {
            throw CoreMLFormatError("\(what) hold a value that is not finite (\(weights.values[bad]) at index \(bad))")
        }
        return weights
    }
}
