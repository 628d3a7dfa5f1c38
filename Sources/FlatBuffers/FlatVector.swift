/// A vector of a ``FlatBuffer``: `count` elements of `elementSize` bytes from `start`, all
/// checked to lie inside the buffer when the vector was read.
public struct FlatVector: Sendable {
    public let buffer: FlatBuffer
    /// Byte position of the first element.
    public let start: Int
    /// Number of elements.
    public let count: Int
    /// Bytes per element.
    public let elementSize: Int
    let depth: Int

    /// The elements' bytes as a range of ``FlatBuffer/bytes``.
    public var byteRange: Range<Int> { start..<(start + count * elementSize) }

    /// All elements as scalars of type `T` (whose size must be the element size).
    public func scalars<T: FixedWidthInteger>(_ type: T.Type) throws -> [T] {
        guard MemoryLayout<T>.size == elementSize else {
            throw FlatBufferError(offset: start, "vector of \(elementSize)-byte elements read as \(MemoryLayout<T>.size)-byte \(T.self)")
        }
        return buffer.bytes.withUnsafeBytes { raw in
            (0..<count).map { T(littleEndian: raw.loadUnaligned(fromByteOffset: start + $0 * elementSize, as: T.self)) }
        }
    }

    /// Element `index` of a vector of tables.
    public func table(at index: Int) throws -> FlatTable {
        let p = try elementPosition(index, size: 4)
        let target = try buffer.offsetTarget(at: p, what: "table element \(index)")
        return try FlatTable(buffer: buffer, position: target, depth: depth + 1)
    }

    /// Element `index` of a vector of strings.
    public func string(at index: Int) throws -> String {
        let p = try elementPosition(index, size: 4)
        let target = try buffer.offsetTarget(at: p, what: "string element \(index)")
        return try buffer.vector(at: target, elementSize: 1, depth: depth + 1, what: "string element \(index)").string()
    }

    /// The bytes of a byte vector as UTF-8 text (invalid sequences replaced).
    public func string() throws -> String {
        String(decoding: buffer.bytes[byteRange], as: UTF8.self)
    }

    private func elementPosition(_ index: Int, size: Int) throws -> Int {
        guard index >= 0, index < count, elementSize == size else {
            throw FlatBufferError(offset: start, "element \(index) of a \(count)-element vector of \(elementSize)-byte elements read as \(size) bytes")
        }
        return start + index * elementSize
    }
}
