/// One table of a ``FlatBuffer``: its fields are read by schema field id (0-based, in declaration
/// order, a union counting as two ids), each absent field giving the caller's default.
///
/// Creating a table checks its `soffset`, its vtable header and that the vtable and the table's
/// inline part lie inside the buffer; each field read checks that the field lies inside the table.
public struct FlatTable: Sendable {
    public let buffer: FlatBuffer
    /// Byte position of the table (its `soffset`).
    public let position: Int
    /// How many tables were followed from the root to reach this one.
    public let depth: Int
    let vtable: Int
    let vtableSize: Int
    let tableSize: Int

    init(buffer: FlatBuffer, position: Int, depth: Int) throws {
        guard depth <= FlatBuffer.maxDepth else {
            throw FlatBufferError(offset: position, "tables nested deeper than \(FlatBuffer.maxDepth)")
        }
        let soffset = Int(try buffer.load(Int32.self, at: position, what: "table"))
        let vtable = position - soffset
        let vtableSize = Int(try buffer.load(UInt16.self, at: vtable, what: "vtable of the table at \(position)"))
        let tableSize = Int(try buffer.load(UInt16.self, at: vtable + 2, what: "vtable of the table at \(position)"))
        guard vtableSize >= 4, vtableSize % 2 == 0 else {
            throw FlatBufferError(offset: vtable, "vtable size \(vtableSize) is not an even number ≥ 4")
        }
        guard tableSize >= 4 else { throw FlatBufferError(offset: vtable + 2, "table size \(tableSize) is less than 4") }
        try buffer.require(vtable, vtableSize, "vtable of the table at \(position)")
        try buffer.require(position, tableSize, "table")
        self.buffer = buffer
        self.position = position
        self.depth = depth
        self.vtable = vtable
        self.vtableSize = vtableSize
        self.tableSize = tableSize
    }

    /// Position of field `id` in the buffer, or nil when absent; checks `size` bytes fit the table.
    func fieldPosition(_ id: Int, size: Int) throws -> Int? {
        let slot = 4 + 2 * id
        guard slot + 2 <= vtableSize else { return nil }
        let offset = Int(try buffer.load(UInt16.self, at: vtable + slot, what: "vtable slot"))
        guard offset != 0 else { return nil }
        guard offset >= 4, offset + size <= tableSize else {
            throw FlatBufferError(offset: vtable + slot, "field \(id) at table byte \(offset) (\(size) bytes) lies outside the \(tableSize)-byte table at \(position)")
        }
        return position + offset
    }

    /// Whether field `id` is present.
    public func has(_ id: Int) throws -> Bool { try fieldPosition(id, size: 1) != nil }

    /// Scalar field `id` (an integer or enum of the schema's width), or `defaultValue` when absent.
    public func scalar<T: FixedWidthInteger>(_ id: Int, default defaultValue: T) throws -> T {
        guard let p = try fieldPosition(id, size: MemoryLayout<T>.size) else { return defaultValue }
        return try buffer.load(T.self, at: p, what: "field \(id)")
    }

    /// Boolean field `id` (one byte, nonzero is true).
    public func bool(_ id: Int, default defaultValue: Bool) throws -> Bool {
        try scalar(id, default: UInt8(defaultValue ? 1 : 0)) != 0
    }

    /// The absolute target of offset field `id`, or nil when absent.
    func offsetField(_ id: Int) throws -> Int? {
        guard let p = try fieldPosition(id, size: 4) else { return nil }
        return try buffer.offsetTarget(at: p, what: "offset field \(id) of the table at \(position)")
    }

    /// Table field `id`, or nil when absent.
    public func table(_ id: Int) throws -> FlatTable? {
        guard let target = try offsetField(id) else { return nil }
        return try FlatTable(buffer: buffer, position: target, depth: depth + 1)
    }

    /// Vector field `id` whose elements are `elementSize` bytes (scalars, or 4 for tables and
    /// strings), or nil when absent.
    public func vector(_ id: Int, elementSize: Int) throws -> FlatVector? {
        guard let target = try offsetField(id) else { return nil }
        return try buffer.vector(at: target, elementSize: elementSize, depth: depth + 1, what: "vector field \(id) of the table at \(position)")
    }

    /// String field `id` (UTF-8; invalid sequences replaced), or nil when absent.
    public func string(_ id: Int) throws -> String? {
        guard let target = try offsetField(id) else { return nil }
        return try buffer.vector(at: target, elementSize: 1, depth: depth + 1, what: "string field \(id)").string()
    }

    /// Union field: its `u8` type at `id` and its table at `id + 1` (nil when type 0, NONE, or absent).
    public func union(_ id: Int) throws -> (type: UInt8, table: FlatTable?) {
        let type: UInt8 = try scalar(id, default: 0)
        guard type != 0 else { return (0, nil) }
        return (type, try table(id + 1))
    }
}
