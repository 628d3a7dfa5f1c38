// Widening fp16 → fp32 is `HalfPrecision.convert`; writing bundles also needs
// the other direction and a test for whether fp16 storage loses anything.
extension HalfPrecision {
    /// Rounds `values` to binary16 (round-to-nearest-even), returning the raw little-endian bits.
    public static func narrow(_ values: [Float]) -> [UInt16] {
        values.map { Float16($0).bitPattern.littleEndian }
    }

    /// Whether every value survives a round trip through binary16 unchanged, i.e. storing the
    /// tensor as fp16 loses nothing.
    public static func isExactlyRepresentable(_ values: [Float]) -> Bool {
        values.allSatisfy { Float(Float16($0)) == $0 || $0.isNaN }
    }
}
