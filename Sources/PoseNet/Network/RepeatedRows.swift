import Tensor
#if canImport(Glibc)
import Glibc
#endif

/// Rows of an activation known to be equal, followed through the network so that each layer
/// computes only one of the output rows they give.
///
/// A letterboxed frame's padding is a band of equal rows (a 640×480 frame at 257 leaves 64 of
/// 257 rows black; a 16:9 frame, 112). A 3×3 layer's output rows whose windows read only such
/// rows are equal again (``ConvolutionGeometry/outputRows(readingOnly:)``), so the layer computes
/// the first of them and skips the rest; the band narrows by the window at every layer and
/// vanishes after a few strided ones. A skipped row is written later, and only if a later
/// layer reads it (a copy of the first row), so every row any layer reads holds the values a
/// full pass gives (bit for bit with PoseKit's GEMM, which rounds every row alike).
struct RepeatedRows {
    /// Rows of the current activation that are all equal (at least two); nil when none are known.
    private(set) var equal: Range<Int>?
    /// Rows of `equal` not written yet (every row after the first may be); they equal `equal`'s first row.
    private var unwritten: Range<Int> = 0..<0

    /// Starts from the network input's longest run of equal rows.
    init(input: Tensor) {
        equal = RepeatedRows.longestRun(in: input)
    }

    /// No rows known equal: every layer computes every row.
    init() {}

    /// The output rows a layer with geometry `g` may skip: all but the first of those whose
    /// windows read only equal rows.
    func skippedRows(_ g: ConvolutionGeometry) -> Range<Int> {
        guard let equal else { return 0..<0 }
        let rows = g.outputRows(readingOnly: equal)
        return rows.count >= 2 ? (rows.lowerBound + 1)..<rows.upperBound : 0..<0
    }

    /// Before a layer with geometry `g` runs on `activation` skipping `skipped`: writes the
    /// unwritten rows its computed rows read.
    func prepare(_ activation: Tensor, for g: ConvolutionGeometry, skipping skipped: Range<Int>) {
        guard !unwritten.isEmpty else { return }
        if skipped.isEmpty {
            write(activation, rows: unwritten)
            return
        }
        let before = g.inputRows(readBy: 0..<skipped.lowerBound)
        let after = g.inputRows(readBy: skipped.upperBound..<g.outputHeight)
        write(activation, rows: unwritten.clamped(to: before))
        write(activation, rows: unwritten.clamped(to: after))
    }

    /// After that layer ran: its output's equal rows, of which `skipped` are unwritten.
    mutating func advance(_ g: ConvolutionGeometry, skipped: Range<Int>) {
        guard let equal else { return }
        let rows = g.outputRows(readingOnly: equal)
        self.equal = rows.count >= 2 ? rows : nil
        unwritten = skipped
    }

    /// Writes every unwritten row of `activation` (before a layer that reads them all).
    mutating func finish(_ activation: Tensor) {
        write(activation, rows: unwritten)
        unwritten = 0..<0
        equal = nil
    }

    /// Copies the first equal row of `activation` (`[H, W, C]`) into `rows`.
    private func write(_ activation: Tensor, rows: Range<Int>) {
        guard let equal, !rows.isEmpty else { return }
        let rowCount = activation.shape[1] * activation.shape[2]
        activation.withUnsafeMutableBufferPointer { p in
            let source = p.baseAddress! + equal.lowerBound * rowCount
            for row in rows { (p.baseAddress! + row * rowCount).update(from: source, count: rowCount) }
        }
    }

    /// The longest run of bit-for-bit equal consecutive rows of `tensor` (`[H, W, C]`), if at least two.
    ///
    /// Rows of a photo differ within their first few values, so `memcmp` returns at once; only
    /// truly equal rows are read whole (about 0.8 MB for a 257 input that is all one color).
    static func longestRun(in tensor: Tensor) -> Range<Int>? {
        let height = tensor.shape[0]
        guard height >= 2 else { return nil }
        let rowBytes = tensor.shape[1] * tensor.shape[2] * MemoryLayout<Float>.stride
        return tensor.withUnsafeBufferPointer { p -> Range<Int>? in
            let base = UnsafeRawPointer(p.baseAddress!)
            var best: Range<Int>? = nil, start = 0
            for row in 1...height {
                if row < height && memcmp(base + (row - 1) * rowBytes, base + row * rowBytes, rowBytes) == 0 { continue }
                if row - start >= 2 && row - start > (best?.count ?? 0) { best = start..<row }
                start = row
            }
            return best
        }
    }
}
