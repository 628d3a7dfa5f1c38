/// PoseKit's one JSON writer: builds JSON text into a reusable byte buffer, with the keys in the
/// order the caller writes them (stable for diffs and greps) and no per-value allocation.
///
/// Pose lines (``PoseJSONLinesEncoder``) are written per frame at video rate, so this stays small
/// and fast: no Foundation, no `String(format:)`.
///
/// **Numbers: one rule for every line PoseKit writes** (poses, action events, COCO results,
/// `eval --json`). ``number(_:decimals:)`` rounds to a number of decimals fixed per kind of field
/// (``Decimals``), then writes the shortest text that reads back as that rounded value:
/// - rounding is of the double's exact binary value to the nearest multiple of 10⁻ᵈ; an exact
///   tie (only values binary holds exactly, such as 0.125 or 2.5) goes away from zero. So 0.125
///   → `0.13` and 2.5 → `3` at 2 and 0 decimals, but 0.145 → `0.14`: its double is
///   0.14499999999999999…, below the half;
/// - no trailing zeros, no decimal point for whole numbers (`0.9`, `12`, `0`), no minus sign on
///   zero (−0.0 and −0.001 at 2 decimals are `0`);
/// - no exponent below 10²¹ (`1000000000000000`); from there on, the exponent form (`1e+21`);
/// - NaN and ±∞ are `null` (JSON has no such numbers).
///
/// This is JavaScript's `String(Number(x.toFixed(d)))`, and what Python's
/// `float(Decimal(x).quantize(Decimal(10) ** -d, ROUND_HALF_UP))` prints, written positionally.
///
///     var json = JSONText()
///     json.raw("{\"score\": "); json.number(0.91234, decimals: JSONText.Decimals.scores); json.raw("}")
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

    /// Appends `value` rounded to `decimals` digits after the point (0...9), written as the
    /// shortest text that reads back as the rounded value; `null` when not finite. The rule is
    /// the type's (above): `number(0.30000000000000004, decimals: 4)` writes `0.3`,
    /// `number(312.0, decimals: 2)` writes `312`, `number(-0.0, decimals: 2)` writes `0`.
    public mutating func number(_ value: Double, decimals: Int) {
        precondition((0...Self.maximumDecimals).contains(decimals), "JSONText.number: decimals must be in 0...\(Self.maximumDecimals)")
        guard value.isFinite else { raw("null"); return }
        guard let units = Self.roundedUnits(value.magnitude, decimals: decimals) else {
            appendRoundedLarge(value, decimals: decimals)
            return
        }
        if value < 0 && units != 0 { bytes.append(UInt8(ascii: "-")) }
        let divisor = Self.powersOfTen[decimals]
        integer(Int(units / divisor))
        var fraction = units % divisor
        guard fraction != 0 else { return }
        var digits = decimals
        while fraction % 10 == 0 { fraction /= 10; digits -= 1 }
        bytes.append(UInt8(ascii: "."))
        var place = Self.powersOfTen[digits - 1]
        while place > 0 {
            bytes.append(UInt8(ascii: "0") + UInt8(fraction / place))
            fraction %= place
            place /= 10
        }
    }

    /// Kinds of number PoseKit writes and the decimals each gets, the same in every output.
    public enum Decimals {
        /// Image coordinates and boxes, in pixels: 1/100 pixel.
        public static let pixels = 2
        /// Normalized image coordinates (`--coordinates normalized|vision`): 10⁻⁶ of the image.
        public static let normalizedCoordinates = 6
        /// World coordinates, in metres: 0.1 mm.
        public static let metres = 4
        /// Times and durations, in seconds: 1 ms.
        public static let seconds = 3
        /// Scores, confidences and probabilities in 0...1 (also COCO AP and AR).
        public static let scores = 4
        /// Angles in degrees.
        public static let degrees = 0
        /// Proportions of the body: fractions of a height, multiples of a torso or shoulder width.
        public static let proportions = 2
        /// Probabilities of `actions --window`'s one-window check, to compare with Core ML on a device.
        public static let windowCheckProbabilities = 6
    }

    /// Most decimals ``number(_:decimals:)`` writes.
    public static let maximumDecimals = 9

    static let powersOfTen: [UInt64] = (0...maximumDecimals).map { (0..<$0).reduce(1) { n, _ in n * 10 } }

    /// Rounded values with more digits than this go the slow way: up to it, their decimal text
    /// (at most 15 significant digits) is the shortest that reads back as them (`DBL_DIG`).
    static let largestFastUnits: UInt64 = 1_000_000_000_000_000

    /// `magnitude · 10^decimals` rounded to the nearest integer (exact ties up), computed exactly
    /// from the double's binary form `m · 2^e`; nil when that is over ``largestFastUnits``.
    static func roundedUnits(_ magnitude: Double, decimals: Int) -> UInt64? {
        guard let (high, low) = exactRoundedUnits(magnitude, decimals: decimals),
              high == 0, low <= largestFastUnits else { return nil }
        return low
    }

    /// `magnitude · 10^decimals` rounded as ``roundedUnits(_:decimals:)``, as a 128-bit integer
    /// `(high, low)`; nil for a magnitude of 2⁵² or more (a whole number: nothing to round).
    static func exactRoundedUnits(_ magnitude: Double, decimals: Int) -> (high: UInt64, low: UInt64)? {
        if magnitude == 0 { return (0, 0) }
        let subnormal = magnitude.exponentBitPattern == 0
        let significand = magnitude.significandBitPattern | (subnormal ? 0 : 1 << 52)
        let exponent = (subnormal ? 1 : Int(magnitude.exponentBitPattern)) - 1075
        guard exponent < 0 else { return nil }
        let shift = -exponent
        // significand · 10^decimals < 2^53 · 2^30: over 83 bits right, the value is under 1/2.
        guard shift <= 83 else { return (0, 0) }
        var (high, low) = significand.multipliedFullWidth(by: powersOfTen[decimals])
        // + 2^(shift − 1), then >> shift: rounds to nearest with exact ties up.
        if shift - 1 < 64 {
            let (sum, carry) = low.addingReportingOverflow(1 << (shift - 1))
            low = sum
            if carry { high += 1 }
        } else {
            high += 1 << (shift - 1 - 64)
        }
        if shift < 64 { return (high >> shift, (low >> shift) | (high << (64 - shift))) }
        return (0, high >> (shift - 64))
    }

    /// The rule for rounded values of 16 digits or more (never a pixel, second or score): the
    /// rounded value is made exactly, read back as a double, and written with Swift's shortest
    /// round-trip digits, positionally below 10²¹.
    mutating func appendRoundedLarge(_ value: Double, decimals: Int) {
        var rounded = value.magnitude
        if let (high, low) = Self.exactRoundedUnits(value.magnitude, decimals: decimals) {
            let text = Self.decimalText(high: high, low: low, decimals: decimals)
            rounded = Double(text)!   // a plain decimal: always parses, correctly rounded
        }
        if value < 0 && rounded != 0 { bytes.append(UInt8(ascii: "-")) }
        appendShortest(rounded)
    }

    /// The 128-bit integer `(high, low)` divided by 10^decimals, as decimal text.
    static func decimalText(high: UInt64, low: UInt64, decimals: Int) -> String {
        var digits: [UInt8] = []
        var (high, low) = (high, low)
        repeat {
            // (high · 2^64 + low) / 10, digit by digit (high / 10 first, then the remainder with low).
            let (q1, r1) = high.quotientAndRemainder(dividingBy: 10)
            let (q0, r0) = (10 as UInt64).dividingFullWidth((r1, low))
            digits.append(UInt8(ascii: "0") + UInt8(r0))
            (high, low) = (q1, q0)
        } while high != 0 || low != 0
        while digits.count <= decimals { digits.append(UInt8(ascii: "0")) }
        var text = [UInt8]()
        for (index, digit) in digits.enumerated().reversed() {
            text.append(digit)
            if index == decimals && decimals > 0 { text.append(UInt8(ascii: ".")) }
        }
        return String(decoding: text, as: UTF8.self)
    }

    /// Appends a positive finite `magnitude` with the shortest digits that read back as it
    /// (Swift's `description`), positionally when under 10²¹, else as `d.ddde+N`.
    mutating func appendShortest(_ magnitude: Double) {
        let text = Array(magnitude.description.utf8)   // "1234.5", "4503599627370496.0", "1e+16", "1.5e+300"
        let e = text.firstIndex(of: UInt8(ascii: "e")) ?? text.count
        let exponent = e < text.count ? Int(String(decoding: text[(e + 1)...], as: UTF8.self))! : 0
        let mantissa = text[..<e]
        let point = mantissa.firstIndex(of: UInt8(ascii: ".")) ?? mantissa.endIndex
        var digits = Array(mantissa.filter { $0 != UInt8(ascii: ".") })
        var integerDigits = point - mantissa.startIndex + exponent   // digits before the point
        while digits.count > 1 && digits.first == UInt8(ascii: "0") { digits.removeFirst(); integerDigits -= 1 }
        while digits.count > 1 && digits.last == UInt8(ascii: "0") { digits.removeLast() }
        if integerDigits > 21 {
            bytes.append(digits[0])
            if digits.count > 1 { bytes.append(UInt8(ascii: ".")); bytes.append(contentsOf: digits[1...]) }
            raw("e+"); integer(integerDigits - 1)
        } else if integerDigits >= digits.count {
            bytes.append(contentsOf: digits)
            bytes.append(contentsOf: repeatElement(UInt8(ascii: "0"), count: integerDigits - digits.count))
        } else if integerDigits > 0 {
            bytes.append(contentsOf: digits[..<integerDigits]); bytes.append(UInt8(ascii: "."))
            bytes.append(contentsOf: digits[integerDigits...])
        } else {
            raw("0."); bytes.append(contentsOf: repeatElement(UInt8(ascii: "0"), count: -integerDigits))
            bytes.append(contentsOf: digits)
        }
    }

    /// Appends a line break (the end of a JSON Lines record).
    public mutating func newline() { bytes.append(UInt8(ascii: "\n")) }
}
