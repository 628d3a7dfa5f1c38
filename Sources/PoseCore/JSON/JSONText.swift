import Foundation

/// PoseKit's one JSON writer: builds JSON text into a reusable byte buffer, with the keys in the
/// order the caller writes them (stable for diffs and greps) and no per-value allocation.
///
/// Pose lines (``PoseJSONLinesEncoder``) are written per frame at video rate, so this stays small
/// and fast. Numbers come in two styles, both `null` when not finite (JSON cannot hold NaN or ∞):
/// - ``number(_:decimals:)``: a fixed number of decimals, rounded half away from zero
///   (`0.9000`, `312.41`), what pose lines use;
/// - ``trimmedNumber(_:decimals:)``: at most that many decimals, trailing zeros dropped but one
///   kept (`0.9`, `12.0`), what `posekit actions` event lines use.
///
///     var json = JSONText()
///     json.raw("{\"score\": "); json.number(0.91234, decimals: 4); json.raw("}")
///     json.newline()   // json.bytes is now `{"score": 0.9123}\n`
public struct JSONText: Sendable {
    /// The text written so far, UTF-8.
    public private(set) var bytes: [UInt8] = []

    /// An empty buffer with room for `capacity` bytes.
    public init(capacity: Int = 4096) { bytes.reserveCapacity(capacity) }

    /// The text written so far, as a `String`.
    public var text: String { String(decoding: bytes, as: UTF8.self) }

    /// Empties the buffer, keeping its storage for the next line.
    public mutating func reset() { bytes.removeAll(keepingCapacity: true) }

    /// Appends `text` as it is (punctuation and keys the caller knows are valid JSON).
    public mutating func raw(_ text: StaticString) {
        text.withUTF8Buffer { bytes.append(contentsOf: $0) }
    }

    /// Appends a JSON string literal with the necessary escapes.
    public mutating func string(_ value: String) {
        bytes.append(UInt8(ascii: "\""))
        for unit in value.utf8 {
            switch unit {
            case UInt8(ascii: "\""): raw("\\\"")
            case UInt8(ascii: "\\"): raw("\\\\")
            case UInt8(ascii: "\n"): raw("\\n")
            case UInt8(ascii: "\r"): raw("\\r")
            case UInt8(ascii: "\t"): raw("\\t")
            case 0..<0x20:
                raw("\\u00")
                let hex: [UInt8] = Array("0123456789abcdef".utf8)
                bytes.append(hex[Int(unit >> 4)]); bytes.append(hex[Int(unit & 15)])
            default: bytes.append(unit)
            }
        }
        bytes.append(UInt8(ascii: "\""))
    }

    /// Appends an integer.
    public mutating func integer(_ value: Int) {
        if value < 0 { bytes.append(UInt8(ascii: "-")) }
        var magnitude = value.magnitude
        var digits: (UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8,
                     UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8) =
            (0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0)
        var count = 0
        withUnsafeMutableBytes(of: &digits) { buffer in
            repeat {
                buffer[count] = UInt8(ascii: "0") + UInt8(magnitude % 10)
                magnitude /= 10
                count += 1
            } while magnitude > 0
            for i in stride(from: count - 1, through: 0, by: -1) { bytes.append(buffer[i]) }
        }
    }

    /// Appends `value` with `decimals` digits after the point, rounded half away from zero
    /// (trailing zeros kept: fixed width is easier to read in a terminal and costs nothing to parse).
    public mutating func number(_ value: Double, decimals: Int) {
        guard value.isFinite else { raw("null"); return }
        var scale = 1.0
        for _ in 0..<decimals { scale *= 10 }
        let scaled = (abs(value) * scale).rounded(.toNearestOrAwayFromZero)
        guard scaled < 9e17 else { raw("null"); return }
        let units = Int(scaled)
        if value < 0 && units != 0 { bytes.append(UInt8(ascii: "-")) }
        let divisor = Int(scale)
        integer(units / divisor)
        if decimals > 0 {
            bytes.append(UInt8(ascii: "."))
            var fraction = units % divisor
            var place = divisor / 10
            while place > 0 {
                bytes.append(UInt8(ascii: "0") + UInt8(fraction / place))
                fraction %= place
                place /= 10
            }
        }
    }

    /// Appends `value` with at most `decimals` digits after the point, rounded as C's `printf`
    /// rounds (to the nearest representable decimal), trailing zeros dropped but one kept
    /// (`0.25`, `3.0`); `-0.0` is written `0.0`.
    public mutating func trimmedNumber(_ value: Double, decimals: Int) {
        guard value.isFinite else { raw("null"); return }
        var text = String(format: "%.\(decimals)f", value)
        if text.contains(".") {
            while text.hasSuffix("0") { text.removeLast() }
            if text.hasSuffix(".") { text.append("0") }
        }
        if text == "-0.0" { text = "0.0" }
        bytes.append(contentsOf: text.utf8)
    }

    /// Appends a line break (the end of a JSON Lines record).
    public mutating func newline() { bytes.append(UInt8(ascii: "\n")) }
}
