import Testing
import PoseCore

/// ``JSONText/number(_:decimals:)``, PoseKit's one JSON number rule, against expectations worked
/// out by hand from each double's exact binary value (shown in the comments; Python's
/// `decimal.Decimal(x)` prints it) and JavaScript's `String(Number(x.toFixed(d)))`.
@Suite struct JSONNumberTests {
    static func text(_ value: Double, _ decimals: Int) -> String {
        var json = JSONText()
        json.number(value, decimals: decimals)
        return json.text
    }

    @Test(arguments: [
        // Exact binary halves go away from zero.
        (0.125, 2, "0.13"), (-0.125, 2, "-0.13"), (2.5, 0, "3"), (-2.5, 0, "-3"), (0.5, 0, "1"), (1.5, 0, "2"),
        (123456789.125, 2, "123456789.13"),
        // Decimal "halves" that binary holds a little below or above the half: the exact value decides.
        (1.005, 2, "1"),            // 1.00499999999999989…
        (0.145, 2, "0.14"),         // 0.14499999999999999…
        (312.405, 2, "312.4"),      // 312.40499999999997…
        (4.35, 1, "4.3"),           // 4.34999999999999964… (x · 10 in doubles is 43.5: no shortcut through it)
        (0.00005, 4, "0.0001"),     // 0.0000500000000000000024…
        (0.00015, 4, "0.0001"),     // 0.000149999999999999987…
        (0.0000015, 6, "0.000002"), // 0.0000015000000000000000380…
        (99.995, 2, "100"),         // 99.9950000000000045…
    ] as [(Double, Int, String)])
    func halves(value: Double, decimals: Int, expected: String) {
        #expect(Self.text(value, decimals) == expected, "\(value) at \(decimals) decimals")
    }

    @Test(arguments: [
        (0.1 + 0.2, 4, "0.3"), (0.1 + 0.2, 2, "0.3"), (1.0 / 3, 9, "0.333333333"), (2.0 / 3, 4, "0.6667"),
        (12.0, 2, "12"), (312.41, 2, "312.41"), (0.9, 4, "0.9"), (0.05, 4, "0.05"), (0.91234, 4, "0.9123"),
        (1.9667, 3, "1.967"), (0.02766, 4, "0.0277"), (88.6, 0, "89"), (8.4, 3, "8.4"), (0.994268, 6, "0.994268"),
        (0.000485, 6, "0.000485"), (7.0, 0, "7"), (0.0625, 4, "0.0625"),
    ] as [(Double, Int, String)])
    func ordinaryValuesDropTrailingZeros(value: Double, decimals: Int, expected: String) {
        #expect(Self.text(value, decimals) == expected, "\(value) at \(decimals) decimals")
    }

    @Test func zeroHasNoSign() {
        #expect(Self.text(0, 2) == "0")
        #expect(Self.text(-0.0, 2) == "0")
        #expect(Self.text(-0.001, 2) == "0")
        #expect(Self.text(1e-7, 4) == "0")
        #expect(Self.text(0.0000005, 6) == "0")        // 4.99999999999999977…e-7: under the half (x · 10⁶ is 0.5 in doubles)
        #expect(Self.text(.leastNonzeroMagnitude, 9) == "0")
        #expect(Self.text(-1e-300, 0) == "0")
    }

    @Test func notFiniteIsNull() {
        #expect(Self.text(.nan, 2) == "null")
        #expect(Self.text(.infinity, 0) == "null")
        #expect(Self.text(-.infinity, 4) == "null")
        #expect(Self.text(-.nan, 3) == "null")
    }

    @Test(arguments: [
        (1e15, 2, "1000000000000000"),
        (1e16, 0, "10000000000000000"),
        (1e20, 3, "100000000000000000000"),
        (123.456e18, 2, "123456000000000000000"),
        (1e21, 0, "1e+21"),
        (-1.5e300, 2, "-1.5e+300"),
        (9007199254740994, 2, "9007199254740994"),            // 2^53 + 2
        (4503599627370495.5, 0, "4503599627370496"),          // an exact half under 2^52: away from zero
        (4503599627370495.5, 2, "4503599627370495.5"),
        (10000000000000.001953125, 2, "10000000000000"),      // rounds to a whole number
        (12345678901234.567, 2, "12345678901234.57"),         // the double is 12345678901234.56640625
        (1e10 + 0.3, 6, "10000000000.3"),                     // 10000000000.299999237…: 10000000000.299999 reads back as the same double, 10000000000.3 is shorter
    ] as [(Double, Int, String)])
    func largeValuesStayExactAndShortest(value: Double, decimals: Int, expected: String) {
        #expect(Self.text(value, decimals) == expected, "\(value) at \(decimals) decimals")
    }

    /// Over many values: the text reads back within half a unit of the last decimal, with at most
    /// that many decimals and no trailing zero.
    @Test func randomValuesReadBackWithinHalfAUnit() {
        var state: UInt64 = 0x9E3779B97F4A7C15
        for _ in 0..<20_000 {
            state = state &* 6364136223846793005 &+ 1442695040888963407
            let value = (Double(state >> 11) / Double(1 << 53) - 0.5) * 4000
            for decimals in [0, 2, 3, 4] {
                let text = Self.text(value, decimals)
                let back = Double(text)!
                let unit = [1.0, 0.1, 0.01, 0.001, 0.0001][decimals]
                #expect(abs(back - value) <= unit / 2 + 1e-12, "\(value) → \(text)")
                let fraction = text.split(separator: ".").dropFirst().first ?? ""
                #expect(fraction.count <= decimals && !fraction.hasSuffix("0"), "\(value) → \(text)")
            }
        }
    }

    @Test func aLineKeepsItsOtherValues() {
        var json = JSONText()
        json.raw("{\"score\": "); json.number(0.91234, decimals: JSONText.Decimals.scores)
        json.raw(", \"x\": "); json.number(312.0, decimals: JSONText.Decimals.pixels)
        json.raw(", \"time\": "); json.number(0, decimals: JSONText.Decimals.seconds); json.raw("}")
        json.newline()
        #expect(json.text == "{\"score\": 0.9123, \"x\": 312, \"time\": 0}\n")
    }
}
