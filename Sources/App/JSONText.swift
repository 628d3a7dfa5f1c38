/// Builds JSON text into a reusable byte buffer without Foundation: fixed key order (stable for
/// diffs and greps), fixed decimals, no per-value allocation.
///
/// JSON Lines output is written per frame at video rate, so this stays small and fast; numbers
/// are printed with a fixed number of decimals rounded half away from zero, and non-finite
/// numbers (which JSON cannot hold) become `null`.
struct JSONText {
    private(set) var bytes: [UInt8] = []

    init(capacity: Int = 4096) { bytes.reserveCapacity(capacity) }

    mutating func reset() { bytes.removeAll(keepingCapacity: true) }

    mutating func raw(_ text: StaticString) {
        text.withUTF8Buffer { bytes.append(contentsOf: $0) }
    }

    /// A JSON string literal with the necessary escapes.
    mutating func string(_ value: String) {
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

    mutating func integer(_ value: Int) {
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

    /// `value` with `decimals` digits after the point (trailing zeros kept: fixed width is
    /// easier to read in a terminal and costs nothing to parse).
    mutating func number(_ value: Double, decimals: Int) {
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

    mutating func newline() { bytes.append(UInt8(ascii: "\n")) }
}
