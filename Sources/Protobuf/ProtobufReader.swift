import Foundation

/// A minimal reader for the protocol buffers *wire format*: enough to walk Core ML and
/// TensorFlow files without generated code.
///
/// A protobuf message is a flat sequence of fields. Each field starts with a varint key
/// `fieldNumber << 3 | wireType`; the wire type says how long the value is:
///
/// | wire type | meaning                                   | used for                          |
/// |-----------|-------------------------------------------|-----------------------------------|
/// | 0         | varint (7 bits per byte, low bits first)  | ints, bools, enums                |
/// | 1         | 8 bytes little-endian                     | double, fixed64                   |
/// | 2         | varint length, then that many bytes       | strings, bytes, sub-messages, packed repeated |
/// | 5         | 4 bytes little-endian                     | float, fixed32                    |
///
/// Wire types 3 and 4 (groups) are obsolete and rejected. Nothing here knows a schema: callers
/// ask for field numbers (taken from the public `.proto` files) and interpret the values.
/// Every read is bounds-checked, so a corrupt or truncated file throws ``ProtobufError``
/// instead of reading out of range.
public struct ProtobufMessage: Sendable {
    /// The whole file; messages are windows onto it (no copies).
    public let buffer: [UInt8]
    /// This message's bytes within ``buffer``.
    public let range: Range<Int>

    public init(buffer: [UInt8], range: Range<Int>? = nil) {
        self.buffer = buffer
        self.range = range ?? 0..<buffer.count
    }

    /// Decodes all fields of this message, in file order.
    public func fields() throws -> [ProtobufField] {
        var out: [ProtobufField] = []
        var position = range.lowerBound
        while position < range.upperBound {
            let keyAt = position
            let key = try readVarint(&position)
            let number = Int(truncatingIfNeeded: key >> 3)
            guard number > 0 else { throw ProtobufError.malformed("field number 0 at byte \(keyAt)") }
            let value: ProtobufValue
            switch key & 7 {
            case 0:
                value = .varint(try readVarint(&position))
            case 1:
                value = .fixed64(try readLittleEndian(&position, width: 8))
            case 2:
                let length = try readVarint(&position)
                guard length <= UInt64(range.upperBound - position) else {
                    throw ProtobufError.truncated("field \(number) at byte \(keyAt) claims \(length) bytes, \(range.upperBound - position) remain")
                }
                let start = position
                position += Int(length)
                value = .bytes(start..<position)
            case 5:
                value = .fixed32(UInt32(truncatingIfNeeded: try readLittleEndian(&position, width: 4)))
            default:
                throw ProtobufError.malformed("wire type \(key & 7) for field \(number) at byte \(keyAt)")
            }
            out.append(ProtobufField(number: number, value: value))
        }
        return out
    }

    /// Reads a base-128 varint at `position` (at most 10 bytes) and advances past it.
    public func readVarint(_ position: inout Int) throws -> UInt64 {
        var result: UInt64 = 0
        var shift: UInt64 = 0
        while true {
            guard position < range.upperBound else { throw ProtobufError.truncated("varint runs past byte \(range.upperBound)") }
            let byte = buffer[position]
            position += 1
            guard shift < 64 else { throw ProtobufError.malformed("varint longer than 10 bytes before byte \(position)") }
            result |= UInt64(byte & 0x7f) << shift
            if byte & 0x80 == 0 { return result }
            shift += 7
        }
    }

    private func readLittleEndian(_ position: inout Int, width: Int) throws -> UInt64 {
        guard range.upperBound - position >= width else {
            throw ProtobufError.truncated("\(width)-byte value at byte \(position) runs past byte \(range.upperBound)")
        }
        var value: UInt64 = 0
        for i in 0..<width { value |= UInt64(buffer[position + i]) << (8 * UInt64(i)) }
        position += width
        return value
    }

    /// A sub-message stored in a length-delimited field.
    public func message(_ range: Range<Int>) -> ProtobufMessage { ProtobufMessage(buffer: buffer, range: range) }
}

/// One decoded field: its number and raw value.
public struct ProtobufField: Sendable {
    public let number: Int
    public let value: ProtobufValue
}

/// A field's value as the wire format stores it, before any schema interpretation.
public enum ProtobufValue: Sendable {
    case varint(UInt64)
    case fixed64(UInt64)
    case fixed32(UInt32)
    /// Length-delimited: a byte range into the file buffer.
    case bytes(Range<Int>)
}

/// What went wrong while walking protobuf bytes (wrapped with the file name by importers).
public enum ProtobufError: Error, CustomStringConvertible {
    case truncated(String)
    case malformed(String)
    /// An integer field whose value lies outside what its reader accepts (``ProtobufFields/uint(_:in:)``).
    case outOfRange(field: Int, value: UInt64, allowed: ClosedRange<Int>)

    public var description: String {
        switch self {
        case .truncated(let what): return "truncated protobuf: \(what)"
        case .malformed(let what): return "malformed protobuf: \(what)"
        case .outOfRange(let field, let value, let allowed):
            return "field \(field) holds \(value), outside \(allowed.lowerBound)...\(allowed.upperBound)"
        }
    }
}

/// Schema-level convenience over a decoded field list: "the varint in field 3", "the packed
/// floats in field 1", and so on. Proto3 semantics: a missing scalar is its zero value, and the
/// last occurrence of a non-repeated field wins.
public struct ProtobufFields: Sendable {
    public let message: ProtobufMessage
    public let all: [ProtobufField]

    public init(_ message: ProtobufMessage) throws {
        self.message = message
        self.all = try message.fields()
    }

    public func has(_ number: Int) -> Bool { all.contains { $0.number == number } }

    /// Every value stored under `number`, in file order.
    public func values(_ number: Int) -> [ProtobufValue] { all.filter { $0.number == number }.map(\.value) }

    /// The last varint in `number`, or `0` when absent.
    public func uint(_ number: Int) throws -> UInt64 {
        guard let last = values(number).last else { return 0 }
        guard case .varint(let v) = last else { throw ProtobufError.malformed("field \(number) is not a varint") }
        return v
    }

    public func bool(_ number: Int) throws -> Bool { try uint(number) != 0 }

    /// The last varint in `number` (absent: `0`) as an `Int`, when it lies in `allowed`; otherwise
    /// ``ProtobufError/outOfRange(field:value:allowed:)``. A varint read from a file may be
    /// anything up to 2^64 − 1: convert through here (or ``checked(_:in:)``), never `Int(value)`,
    /// which traps at 2^63 (or wraps in an unchecked build).
    public func uint(_ number: Int, in allowed: ClosedRange<Int>) throws -> Int {
        let value = try uint(number)
        guard let result = Self.checked(value, in: allowed) else {
            throw ProtobufError.outOfRange(field: number, value: value, allowed: allowed)
        }
        return result
    }

    /// Every integer in repeated field `number` (packed or not) as `Int`s, each in `allowed`.
    public func uints(_ number: Int, in allowed: ClosedRange<Int>) throws -> [Int] {
        try uints(number).map { value in
            guard let result = Self.checked(value, in: allowed) else {
                throw ProtobufError.outOfRange(field: number, value: value, allowed: allowed)
            }
            return result
        }
    }

    /// `value` as an `Int` when it lies in `allowed`, else `nil` (no trap, no wrap).
    public static func checked(_ value: UInt64, in allowed: ClosedRange<Int>) -> Int? {
        guard value <= UInt64(Int.max) else { return nil }
        let result = Int(value)
        return allowed.contains(result) ? result : nil
    }

    /// The last varint in `number` read as a signed `int64` (two's complement, as proto3 stores
    /// negative `int64` values: ten bytes), or `0` when absent.
    public func int(_ number: Int) throws -> Int { Int(Int64(bitPattern: try uint(number))) }

    /// A repeated `int64` field (packed or not), each value read as signed.
    public func ints(_ number: Int) throws -> [Int] { try uints(number).map { Int(Int64(bitPattern: $0)) } }

    /// The last `float` (wire type 5) in `number`, or `defaultValue` when absent.
    public func float(_ number: Int, default defaultValue: Float = 0) throws -> Float {
        guard let last = values(number).last else { return defaultValue }
        guard case .fixed32(let bits) = last else { throw ProtobufError.malformed("field \(number) is not a 32-bit float") }
        return Float(bitPattern: bits)
    }

    /// The last length-delimited value in `number` as a byte range, or `nil` when absent.
    public func bytes(_ number: Int) throws -> Range<Int>? {
        guard let last = values(number).last else { return nil }
        guard case .bytes(let r) = last else { throw ProtobufError.malformed("field \(number) is not length-delimited") }
        return r
    }

    /// The last length-delimited value in `number`, decoded as UTF-8 (empty when absent).
    public func string(_ number: Int) throws -> String {
        guard let r = try bytes(number) else { return "" }
        return String(decoding: message.buffer[r], as: UTF8.self)
    }

    /// Every length-delimited value in `number` decoded as UTF-8 (repeated string).
    public func strings(_ number: Int) throws -> [String] {
        try values(number).map { value in
            guard case .bytes(let r) = value else { throw ProtobufError.malformed("field \(number) is not a string") }
            return String(decoding: message.buffer[r], as: UTF8.self)
        }
    }

    /// The last sub-message in `number`, or `nil` when absent.
    public func message(_ number: Int) throws -> ProtobufFields? {
        guard let r = try bytes(number) else { return nil }
        return try ProtobufFields(message.message(r))
    }

    /// Every sub-message in `number` (repeated message).
    public func messages(_ number: Int) throws -> [ProtobufFields] {
        try values(number).map { value in
            guard case .bytes(let r) = value else { throw ProtobufError.malformed("field \(number) is not a message") }
            return try ProtobufFields(message.message(r))
        }
    }

    /// A repeated integer field, accepting both packed (one length-delimited run of varints)
    /// and unpacked (one varint per element) encodings, as parsers must.
    public func uints(_ number: Int) throws -> [UInt64] {
        var out: [UInt64] = []
        for value in values(number) {
            switch value {
            case .varint(let v): out.append(v)
            case .bytes(let r):
                var position = r.lowerBound
                let run = message.message(r)
                while position < r.upperBound { out.append(try run.readVarint(&position)) }
            default: throw ProtobufError.malformed("field \(number) is not a repeated integer")
            }
        }
        return out
    }

    /// A repeated `float` field, packed (little-endian run) or unpacked (one fixed32 each).
    public func floats(_ number: Int) throws -> [Float] {
        var out: [Float] = []
        for value in values(number) {
            switch value {
            case .fixed32(let bits): out.append(Float(bitPattern: bits))
            case .bytes(let r):
                guard r.count % 4 == 0 else { throw ProtobufError.malformed("packed floats in field \(number) are \(r.count) bytes, not a multiple of 4") }
                out.reserveCapacity(out.count + r.count / 4)
                message.buffer.withUnsafeBytes { raw in
                    for offset in stride(from: r.lowerBound, to: r.upperBound, by: 4) {
                        out.append(Float(bitPattern: UInt32(littleEndian: raw.loadUnaligned(fromByteOffset: offset, as: UInt32.self))))
                    }
                }
            default: throw ProtobufError.malformed("field \(number) is not a repeated float")
            }
        }
        return out
    }
}

extension ProtobufError: LocalizedError {
    /// ``description``: `localizedDescription` is the one line `posekit` prints after `posekit: error: `.
    public var errorDescription: String? { description }
}
