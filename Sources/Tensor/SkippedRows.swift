/// Output rows (or columns) `0..<count` with a run of them left out: what a kernel computes when
/// the caller asks it to skip some (``Convolution/separable(_:depthwiseWeights:depthwiseBias:stride:dilation:packed:activation:into:workspace:skippingRows:skippingColumns:threads:)``).
///
/// The computed rows are numbered contiguously (`0..<computed`) so that they split over cores
/// like any other rows; ``forEachRun(_:_:)`` turns a split back into runs of real rows.
struct SkippedRows {
    /// All rows.
    let count: Int
    /// The rows left out, clamped into `0..<count` (empty when nothing is skipped).
    let skipped: Range<Int>

    init(count: Int, skipping rows: Range<Int>) {
        self.count = count
        let low = min(max(rows.lowerBound, 0), count), high = min(max(rows.upperBound, low), count)
        skipped = low < high ? low..<high : 0..<0  // an empty skip splits nothing
    }

    /// How many rows are computed.
    var computed: Int { count - skipped.count }

    /// Calls `body` with the parts of `rows` that are not skipped (none, one or two runs).
    @inline(__always)
    func forEachKept(_ rows: Range<Int>, _ body: (Range<Int>) -> Void) {
        guard !skipped.isEmpty else {
            if !rows.isEmpty { body(rows) }
            return
        }
        let before = rows.clamped(to: 0..<skipped.lowerBound), after = rows.clamped(to: skipped.upperBound..<Int.max)
        if !before.isEmpty { body(before) }
        if !after.isEmpty { body(after) }
    }

    /// Calls `body` with the real rows that computed rows `computedRows` stand for: one run, or
    /// two when they straddle the skipped rows.
    @inline(__always)
    func forEachRun(_ computedRows: Range<Int>, _ body: (Range<Int>) -> Void) {
        guard !computedRows.isEmpty else { return }
        let before = skipped.lowerBound, gap = skipped.count
        if computedRows.lowerBound < before {
            body(computedRows.lowerBound..<min(computedRows.upperBound, before))
        }
        if computedRows.upperBound > before {
            body((max(computedRows.lowerBound, before) + gap)..<(computedRows.upperBound + gap))
        }
    }
}
