/// A tiny FlatBuffers writer for hand-made test files (not the official builder): objects are laid
/// out front to back, each parent before its children, so every `uoffset` points forward as the
/// format requires. Tables get a vtable just before them (`soffset` = table − vtable > 0) and one
/// 4-byte slot per field (8 for 64-bit scalars); everything is 4-byte aligned.
///
/// A table is `[fieldID: FBField]`; ids are the schema's declaration order (a union is two ids).
enum FBField {
    case int8(Int8), uint8(UInt8), int32(Int32), uint32(UInt32), uint64(UInt64), bool(Bool)
    case table([Int: FBField])
    case string(String)
    case int32s([Int32]), uint16s([UInt16]), bytes([UInt8])
    case tables([[Int: FBField]])
}

struct FlatBufferBuilder {
    private(set) var bytes: [UInt8] = []

    /// A whole buffer: root offset, `identifier` (4 bytes), then `root`.
    static func build(root: [Int: FBField], identifier: String = "TFL3") -> [UInt8] {
        var b = FlatBufferBuilder()
        b.bytes = [0, 0, 0, 0] + Array(identifier.utf8.prefix(4))
        let position = b.table(root)
        b.patch(at: 0, UInt32(position))
        return b.bytes
    }

    private mutating func align() { while bytes.count % 4 != 0 { bytes.append(0) } }
    private mutating func append<T: FixedWidthInteger>(_ v: T) { withUnsafeBytes(of: v.littleEndian) { bytes.append(contentsOf: $0) } }
    private mutating func patch(at position: Int, _ v: UInt32) {
        withUnsafeBytes(of: v.littleEndian) { for (i, b) in $0.enumerated() { bytes[position + i] = b } }
    }

    /// Writes a table (vtable first) and its children; returns the table's position.
    private mutating func table(_ fields: [Int: FBField]) -> Int {
        align()
        let ids = fields.keys.sorted()
        let slotCount = (ids.last ?? -1) + 1
        var layout: [Int: Int] = [:]   // id → offset inside the table
        var size = 4
        for id in ids {
            layout[id] = size
            if case .uint64 = fields[id]! { size += 8 } else { size += 4 }
        }
        let vtable = bytes.count
        append(UInt16(4 + 2 * slotCount)); append(UInt16(size))
        for id in 0..<slotCount { append(UInt16(layout[id] ?? 0)) }
        align()
        let start = bytes.count
        append(Int32(start - vtable))
        var pending: [(position: Int, field: FBField)] = []
        for id in ids {
            let position = bytes.count
            switch fields[id]! {
            case .int8(let v): append(v); append(UInt8(0)); append(UInt16(0))
            case .uint8(let v): append(v); append(UInt8(0)); append(UInt16(0))
            case .bool(let v): append(UInt8(v ? 1 : 0)); append(UInt8(0)); append(UInt16(0))
            case .int32(let v): append(v)
            case .uint32(let v): append(v)
            case .uint64(let v): append(v)
            case let child: append(UInt32(0)); pending.append((position, child))
            }
        }
        for (position, child) in pending { patch(at: position, UInt32(write(child) - position)) }
        return start
    }

    /// Writes an offset target (table, vector or string); returns its position.
    private mutating func write(_ field: FBField) -> Int {
        switch field {
        case .table(let t): return table(t)
        case .string(let s):
            align(); let p = bytes.count
            append(UInt32(s.utf8.count)); bytes.append(contentsOf: s.utf8); bytes.append(0)
            return p
        case .int32s(let v):
            align(); let p = bytes.count
            append(UInt32(v.count)); v.forEach { append($0) }
            return p
        case .uint16s(let v):
            align(); let p = bytes.count
            append(UInt32(v.count)); v.forEach { append($0) }
            return p
        case .bytes(let v):
            align(); let p = bytes.count
            append(UInt32(v.count)); bytes.append(contentsOf: v)
            return p
        case .tables(let list):
            align(); let p = bytes.count
            append(UInt32(list.count))
            let slots = bytes.count
            list.forEach { _ in append(UInt32(0)) }
            for (i, t) in list.enumerated() { patch(at: slots + 4 * i, UInt32(table(t) - (slots + 4 * i))) }
            return p
        default:
            fatalError("\(field) is a scalar, not an offset target")
        }
    }
}
