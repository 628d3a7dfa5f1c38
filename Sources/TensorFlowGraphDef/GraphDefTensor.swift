import Protobuf
import Tensor

/// A `TensorProto` as float32 values: its shape, values in row-major order, and how it was stored.
///
/// A value is read from `tensor_content` (raw little-endian bytes) or, for small constants, from
/// `float_val` / `half_val` (one value broadcast, or one per element). float32 and float16 are
/// accepted (halves widened exactly by `HalfPrecision`); every dimension is range-checked and a
/// shape may not claim more values than the file could hold.
public struct GraphDefTensor: Sendable {
    public static let tensorDType = 1, tensorShape = 2, tensorContent = 4, tensorFloatVal = 5, tensorHalfVal = 13
    public static let shapeDim = 2, dimSize = 1
    /// TensorFlow's `DataType` values read here.
    public static let dtFloat: UInt64 = 1, dtHalf: UInt64 = 19
    /// The largest dimension and element count accepted (a weight tensor, not a data set).
    public static let maxElements = (1 << 28) - 1

    /// How the file stored the values.
    public enum Storage: Sendable, Equatable { case float32, float16 }

    public let shape: [Int]
    public let values: [Float]
    public let storage: Storage

    /// Decodes `t`; `node` names it in errors.
    init(_ t: ProtobufFields, node name: String) throws {
        func fail(_ detail: String) -> GraphDefError { GraphDefError(node: name, detail) }
        let dtype = try t.uint(Self.tensorDType)
        var shape: [Int] = []
        if let s = try t.message(Self.tensorShape) {
            for dim in try s.messages(Self.shapeDim) {
                let raw = try dim.uint(Self.dimSize)
                guard let size = ProtobufFields.checked(raw, in: 1...Self.maxElements) else {
                    // A negative int64 dimension (-1: unknown) reads as its two's complement.
                    throw fail("has dimension \(Int64(bitPattern: raw))")
                }
                shape.append(size)
            }
        }
        guard !shape.isEmpty else { throw fail("is a scalar, expected a weight tensor") }
        guard let count = WeightManifest.TensorEntry.checkedElementCount(shape), count <= Self.maxElements else { throw fail("shape \(shape) is too large") }
        let width: Int
        switch dtype {
        case Self.dtFloat: width = 4
        case Self.dtHalf: width = 2
        default: throw fail("has TensorFlow dtype \(dtype); only float32 (1) and float16 (19) are supported")
        }
        self.shape = shape
        storage = width == 2 ? .float16 : .float32
        if let content = try t.bytes(Self.tensorContent), !content.isEmpty {
            guard content.count == count * width else {
                throw fail("tensor_content has \(content.count) bytes, shape \(shape) needs \(count * width)")
            }
            var values = [Float](repeating: 0, count: count)
            t.message.buffer.withUnsafeBytes { raw in
                let base = raw.baseAddress! + content.lowerBound
                values.withUnsafeMutableBufferPointer { out in
                    if width == 2 {
                        HalfPrecision.convert(base, count: count, into: out.baseAddress!)
                    } else {
                        for i in 0..<count { out[i] = Float(bitPattern: UInt32(littleEndian: base.loadUnaligned(fromByteOffset: i * 4, as: UInt32.self))) }
                    }
                }
            }
            self.values = values
            return
        }
        // Small constants: repeated float_val / half_val (bits in int32s); a single value fills the tensor.
        var listed: [Float]
        if width == 4 {
            listed = try t.floats(Self.tensorFloatVal)
        } else {
            let bits = try t.uints(Self.tensorHalfVal).map { UInt16(truncatingIfNeeded: $0) }
            listed = [Float](repeating: 0, count: bits.count)
            if !bits.isEmpty {
                bits.withUnsafeBytes { raw in listed.withUnsafeMutableBufferPointer { HalfPrecision.convert(raw.baseAddress!, count: bits.count, into: $0.baseAddress!) } }
            }
        }
        if listed.count == 1 && count > 1 {
            // One value filling the shape: a claim a few bytes make, so it may not exceed what
            // the file itself could hold (a lying shape would otherwise allocate up to 1 GB).
            guard count <= t.message.buffer.count else {
                throw fail("fills shape \(shape) from one value, more values than the \(t.message.buffer.count)-byte file")
            }
            listed = [Float](repeating: listed[0], count: count)
        }
        guard listed.count == count else {
            throw fail("holds \(listed.count) values, shape \(shape) needs \(count)")
        }
        values = listed
    }
}
