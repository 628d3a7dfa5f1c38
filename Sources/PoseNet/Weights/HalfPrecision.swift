/// Bulk fp16 ↔ fp32 conversion for weight blobs.
///
/// Widening uses integer bit manipulation instead of `Float(Float16)` per element: the baseline
/// x86-64 target has no F16C, so the library call would run once per scalar, while this loop is
/// branch-free and vectorises. (A shared Tensor-module helper may replace it later.)
enum HalfPrecision {
    /// Converts `count` little-endian binary16 values at `source` to `Float`s at `destination`.
    ///
    /// Exact for every input, including subnormals, infinities and NaNs: the exponent/mantissa
    /// bits move up 13 places and a multiply by 2¹¹² rebases the exponent (which also
    /// normalises subnormals); values whose exponent is all ones keep an all-ones exponent.
    static func widen(_ source: UnsafeRawPointer, into destination: UnsafeMutablePointer<Float>, count: Int) {
        let rebase = Float(bitPattern: 0x7780_0000) // 2^112
        for i in 0..<count {
            let h = UInt32(UInt16(littleEndian: source.loadUnaligned(fromByteOffset: i * 2, as: UInt16.self)))
            let sign = (h & 0x8000) << 16
            let magnitude = h & 0x7fff
            let scaled = Float(bitPattern: magnitude << 13) * rebase
            // Inf/NaN (exponent 31) → exponent 255, mantissa kept.
            let special: UInt32 = magnitude >= 0x7c00 ? 0x7f80_0000 | ((magnitude & 0x3ff) << 13) : scaled.bitPattern
            destination[i] = Float(bitPattern: special | sign)
        }
    }

    /// Rounds `values` to binary16 (round-to-nearest-even), returning the raw little-endian bits.
    static func narrow(_ values: [Float]) -> [UInt16] {
        values.map { Float16($0).bitPattern.littleEndian }
    }

    /// Whether every value survives a round trip through binary16 unchanged, i.e. storing the
    /// tensor as fp16 loses nothing.
    static func isExactlyRepresentable(_ values: [Float]) -> Bool {
        values.allSatisfy { Float(Float16($0)) == $0 || $0.isNaN }
    }
}
