/// Bulk IEEE 754 binary16 (fp16) → float32 conversion, for loading fp16 weights (e.g. Core ML
/// `float16Value` blobs).
public enum HalfPrecision {
    /// Converts `count` little-endian fp16 values starting at `source` into `destination`.
    ///
    /// Exact for every input: subnormals, ±0, ±∞ and NaNs (payload kept) widen to float32 without
    /// rounding. `source` need not be aligned (protobuf blobs are not).
    public static func convert(
        _ source: UnsafeRawPointer, count: Int, into destination: UnsafeMutablePointer<Float>
    ) {
        for i in 0..<count {
            let bits = UInt16(littleEndian: source.loadUnaligned(fromByteOffset: 2 * i, as: UInt16.self))
            destination[i] = Float(Float16(bitPattern: bits))
        }
    }

    /// Converts the little-endian fp16 bytes of `bytes` (an even number of them) into a tensor of `shape`.
    ///
    /// - Throws: ``TensorError`` when the byte count is not `2 × shape`'s element count.
    public static func tensor(fromLittleEndianHalves bytes: UnsafeRawBufferPointer, shape: [Int]) throws -> Tensor {
        let output = try Tensor(zeros: shape)
        guard bytes.count == 2 * output.count else {
            throw TensorError.shapeMismatch("\(bytes.count) bytes of fp16 for shape \(shape) (needs \(2 * output.count))")
        }
        if let base = bytes.baseAddress {
            output.withUnsafeMutableBufferPointer { convert(base, count: output.count, into: $0.baseAddress!) }
        }
        return output
    }

}
