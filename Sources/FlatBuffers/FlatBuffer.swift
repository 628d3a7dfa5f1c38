/// A FlatBuffers buffer read with every offset and length checked against its size.
///
/// The binary format (little-endian): the buffer starts with a `uoffset` (u32) to the root table,
/// optionally followed by a 4-byte file identifier. A table starts with an `soffset` (i32): its
/// vtable is at `table − soffset`. A vtable is `[u16 vtableSize, u16 tableSize, u16 fieldOffset…]`;
/// field `i`'s offset is at vtable byte `4 + 2·i`, and 0 (or a vtable too short) means "absent,
/// use the schema's default". Offset fields hold a `uoffset` relative to the field's own position,
/// pointing at a table, a vector (`u32 count` then the elements) or a string (a byte vector with a
/// trailing 0). A union is two fields: a `u8` type at `i` and a table offset at `i + 1`.
///
/// Nothing here trusts the buffer: a position is checked before any load, sizes are computed in
/// `Int` (64-bit: a 32-bit count times an element size cannot overflow) and table nesting is bounded
/// by ``maxDepth``, so a truncated or hostile buffer gives a ``FlatBufferError`` naming the offset,
/// never a crash or an unbounded loop. Reading allocates nothing beyond what the caller asks for.
public struct FlatBuffer: Sendable {
    /// The whole buffer.
    public let bytes: [UInt8]
    /// Deepest table nesting followed from the root (schemas such as TFLite's need fewer than 8).
    public static let maxDepth = 32

    public init(bytes: [UInt8]) {
        self.bytes = bytes
    }

    /// Buffer size in bytes.
    public var count: Int { bytes.count }

    /// The 4-byte file identifier after the root offset (`"TFL3"` for TFLite), if the buffer is long enough.
    public var fileIdentifier: String? {
        guard bytes.count >= 8 else { return nil }
        return String(decoding: bytes[4..<8], as: UTF8.self)
    }

    /// The root table.
    public func root() throws -> FlatTable {
        let target = try offsetTarget(at: 0, what: "root table offset")
        return try FlatTable(buffer: self, position: target, depth: 0)
    }

    // MARK: - Checked loads

    /// Throws unless `length` bytes at `position` lie inside the buffer.
    @inline(__always)
    public func require(_ position: Int, _ length: Int, _ what: @autoclosure () -> String) throws {
        guard position >= 0, length >= 0, position <= bytes.count - length else {
            throw FlatBufferError(offset: position, "\(what()) (\(length) bytes) lies outside the \(bytes.count)-byte buffer")
        }
    }

    /// A little-endian scalar at `position` (checked).
    @inline(__always)
    public func load<T: FixedWidthInteger>(_ type: T.Type, at position: Int, what: @autoclosure () -> String) throws -> T {
        try require(position, MemoryLayout<T>.size, what())
        return bytes.withUnsafeBytes { T(littleEndian: $0.loadUnaligned(fromByteOffset: position, as: T.self)) }
    }

    /// The absolute position a `uoffset` stored at `position` points to (checked to lie inside).
    func offsetTarget(at position: Int, what: @autoclosure () -> String) throws -> Int {
        let relative = Int(try load(UInt32.self, at: position, what: what()))
        let target = position + relative
        guard target < bytes.count else {
            throw FlatBufferError(offset: position, "\(what()) points to byte \(target), past the \(bytes.count)-byte buffer")
        }
        return target
    }

    /// The vector whose length prefix is at `position`, with elements of `elementSize` bytes.
    func vector(at position: Int, elementSize: Int, depth: Int, what: @autoclosure () -> String) throws -> FlatVector {
        guard elementSize > 0 else { throw FlatBufferError(offset: position, "vector element size \(elementSize) is not positive") }
        let count = Int(try load(UInt32.self, at: position, what: "length of \(what())"))
        let start = position + 4
        guard count <= (bytes.count - start) / elementSize else {
            throw FlatBufferError(offset: position, "\(what()) claims \(count) elements of \(elementSize) bytes, past the \(bytes.count)-byte buffer")
        }
        return FlatVector(buffer: self, start: start, count: count, elementSize: elementSize, depth: depth)
    }
}
