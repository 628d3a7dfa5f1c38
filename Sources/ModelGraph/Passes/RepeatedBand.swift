import Tensor

/// A band of equal rows (or columns) of an activation, followed through the network so that each
/// layer computes only one of the output rows (columns) the band gives.
///
/// It starts from the input's ``InputBand``, which the caller knows (PoseNet's network-input
/// writer's letterbox: 63 of 257 rows at the bottom for a 640×480 frame, 112 columns at the
/// right for 720×1280); nothing looks for it in the input. ``GraphRunner`` follows it along the
/// plan's band chain (``GraphPlan/bandChainLength``: the steps from the input whose kernels can
/// skip rows, each reading the one before). A 3×3 layer's output rows whose
/// windows read only band rows are equal again (``ConvolutionGeometry/outputRows(readingOnly:)``),
/// so the layer computes the first of them and skips the rest; the band narrows by the window at
/// every layer and vanishes after a few strided ones. A skipped row is written later, and only if
/// a later layer reads it (a copy of the first row), so every row any layer reads holds the values
/// a full pass gives (bit for bit with PoseKit's GEMM, which rounds every row alike). Columns work
/// the same way, row by row.
struct RepeatedBand {
    typealias Axis = InputBand.Axis
    /// Whether the band is rows (equal rows) or columns (in every row, equal pixels).
    private(set) var axis = Axis.rows
    /// The band in the current activation (at least two rows or columns); nil when none is known.
    private(set) var equal: Range<Int>?
    /// Rows (columns) of `equal` not written yet; they equal `equal`'s first one.
    private var unwritten: Range<Int> = 0..<0

    /// Starts from the input's band; nil, or a band of fewer than two rows (columns), leaves
    /// nothing to skip.
    init(band: InputBand?) {
        guard let band, band.range.count >= 2 else { return }
        (axis, equal) = (band.axis, band.range)
    }

    /// The output rows (columns) a layer with geometry `g` may skip: all but the first of those
    /// whose windows read only the band.
    func skipped(_ g: ConvolutionGeometry) -> Range<Int> {
        guard let equal else { return 0..<0 }
        let outputs = axis == .rows ? g.outputRows(readingOnly: equal) : g.outputColumns(readingOnly: equal)
        return outputs.count >= 2 ? (outputs.lowerBound + 1)..<outputs.upperBound : 0..<0
    }

    /// Before a layer with geometry `g` runs on `activation` skipping `skipped`: writes the
    /// unwritten rows (columns) that its computed outputs read.
    func prepare(_ activation: Tensor, for g: ConvolutionGeometry, skipping skipped: Range<Int>) {
        guard !unwritten.isEmpty else { return }
        guard !skipped.isEmpty else {
            write(activation, unwritten)
            return
        }
        let outputs = axis == .rows ? g.outputHeight : g.outputWidth
        let reads = { (range: Range<Int>) in axis == .rows ? g.inputRows(readBy: range) : g.inputColumns(readBy: range) }
        write(activation, unwritten.clamped(to: reads(0..<skipped.lowerBound)))
        write(activation, unwritten.clamped(to: reads(skipped.upperBound..<outputs)))
    }

    /// After that layer ran: its output's band, of which `skipped` are unwritten.
    mutating func advance(_ g: ConvolutionGeometry, skipped: Range<Int>) {
        guard let equal else { return }
        let outputs = axis == .rows ? g.outputRows(readingOnly: equal) : g.outputColumns(readingOnly: equal)
        self.equal = outputs.count >= 2 ? outputs : nil
        unwritten = skipped
    }

    /// Writes every unwritten row (column) of `activation`, before a layer that reads them all.
    mutating func finish(_ activation: Tensor) {
        write(activation, unwritten)
        unwritten = 0..<0
        equal = nil
    }

    /// Copies the band's first row (column) of `activation` (`[H, W, C]`) into `targets`.
    private func write(_ activation: Tensor, _ targets: Range<Int>) {
        guard let equal, !targets.isEmpty else { return }
        let (height, width, channels) = (activation.shape[0], activation.shape[1], activation.shape[2])
        activation.withUnsafeMutableBufferPointer { p in
            let base = p.baseAddress!
            switch axis {
            case .rows:
                let rowCount = width * channels
                for row in targets { (base + row * rowCount).update(from: base + equal.lowerBound * rowCount, count: rowCount) }
            case .columns:
                for y in 0..<height {
                    let row = base + y * width * channels
                    for x in targets { (row + x * channels).update(from: row + equal.lowerBound * channels, count: channels) }
                }
            }
        }
    }
}
