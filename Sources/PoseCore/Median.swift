/// PoseKit's one median: of the action window's torso lengths and of every benchmark's timings.
public enum Median {
    /// The middle of `values` once sorted; of an even count, the upper of the two middle ones,
    /// so the result is always one of the values (a time that was measured, a torso that was
    /// seen). NaN when `values` is empty. `[3, 1, 2]` → 2, `[4, 1, 3, 2]` → 3.
    public static func of(_ values: [Double]) -> Double {
        guard !values.isEmpty else { return .nan }
        return values.sorted()[values.count / 2]
    }
}
