/// A minimal protobuf wire-format *writer*, the mirror of `ProtobufMessage`.
///
/// PoseKit never writes Core ML or TensorFlow files for users; this exists so tests (the importers',
/// ActionNet's Core ML reader's) can craft
/// small, deliberately wrong models (an unsupported layer, a missing tensor, a bad shape) and
/// check that the importers refuse them with a clear message.
public struct ProtobufWriter {
    public private(set) var bytes: [UInt8] = []

    public init() {}

    public mutating func appendVarint(_ value: UInt64) {
        var v = value
        while v >= 0x80 {
            bytes.append(UInt8(truncatingIfNeeded: v) | 0x80)
            v >>= 7
        }
        bytes.append(UInt8(v))
    }

    private mutating func key(_ number: Int, _ wireType: UInt64) {
        appendVarint(UInt64(number) << 3 | wireType)
    }

    /// A varint field (int, bool, enum).
    public mutating func uint(_ number: Int, _ value: UInt64) {
        key(number, 0)
        appendVarint(value)
    }

    /// A `float` field (wire type 5).
    public mutating func float(_ number: Int, _ value: Float) {
        key(number, 5)
        withUnsafeBytes(of: value.bitPattern.littleEndian) { bytes.append(contentsOf: $0) }
    }

    /// A length-delimited field holding raw bytes.
    public mutating func bytes(_ number: Int, _ value: [UInt8]) {
        key(number, 2)
        appendVarint(UInt64(value.count))
        bytes.append(contentsOf: value)
    }

    public mutating func string(_ number: Int, _ value: String) { bytes(number, Array(value.utf8)) }

    /// A sub-message field.
    public mutating func message(_ number: Int, _ build: (inout ProtobufWriter) -> Void) {
        var inner = ProtobufWriter()
        build(&inner)
        bytes(number, inner.bytes)
    }

    /// A packed repeated integer field.
    public mutating func packedUInts(_ number: Int, _ values: [UInt64]) {
        var inner = ProtobufWriter()
        for v in values { inner.appendVarint(v) }
        bytes(number, inner.bytes)
    }

    /// A packed repeated float field (little-endian run).
    public mutating func packedFloats(_ number: Int, _ values: [Float]) {
        var run: [UInt8] = []
        run.reserveCapacity(values.count * 4)
        for v in values { withUnsafeBytes(of: v.bitPattern.littleEndian) { run.append(contentsOf: $0) } }
        bytes(number, run)
    }
}
