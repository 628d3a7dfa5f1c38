import Tensor
#if canImport(Glibc)
import Glibc
#endif

/// A band of equal rows (or columns) of an activation, followed through the network so that each
/// layer computes only one of the output rows (columns) the band gives.
///
/// A letterboxed frame's padding is such a band: a landscape frame leaves rows of one color at
/// the bottom of the input (63 of 257 rows for 640×480, 111 for 1280×720), a portrait one columns
/// at the right. A 3×3 layer's output rows whose windows read only band rows are equal again
/// (``ConvolutionGeometry/outputRows(readingOnly:)``), so the layer computes the first of them
/// and skips the rest; the band narrows by the window at every layer and vanishes after a few
/// strided ones. A skipped row is written later, and only if a later layer reads it (a copy of
/// the first row), so every row any layer reads holds the values a full pass gives (bit for bit
/// with PoseKit's GEMM, which rounds every row alike). Columns work the same way, row by row.
struct RepeatedBand {
    enum Axis { case rows, columns }
    /// Whether the band is rows (equal rows) or columns (in every row, equal pixels).
    private(set) var axis = Axis.rows
    /// The band in the current activation (at least two rows or columns); nil when none is known.
    private(set) var equal: Range<Int>?
    /// Rows (columns) of `equal` not written yet; they equal `equal`'s first one.
    private var unwritten: Range<Int> = 0..<0

    /// Starts from the network input's longest run of equal rows or equal columns, whichever is longer.
    init(input: Tensor) {
        let rows = RepeatedBand.longestRowRun(in: input), columns = RepeatedBand.longestColumnRun(in: input)
        if let columns, columns.count > (rows?.count ?? 0) {
            (axis, equal) = (.columns, columns)
        } else {
            equal = rows
        }
    }

    /// No band: every layer computes everything.
    init() {}

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

    /// The longest run of bit-for-bit equal consecutive rows of `tensor` (`[H, W, C]`), if at least two.
    ///
    /// Rows of a photo differ within their first few values, so `memcmp` returns at once; only
    /// truly equal rows are read whole.
    static func longestRowRun(in tensor: Tensor) -> Range<Int>? {
        let (height, rowBytes) = (tensor.shape[0], tensor.shape[1] * tensor.shape[2] * MemoryLayout<Float>.stride)
        return tensor.withUnsafeBufferPointer { p in
            let base = UnsafeRawPointer(p.baseAddress!)
            return longestRun(count: height) { memcmp(base + ($0 - 1) * rowBytes, base + $0 * rowBytes, rowBytes) == 0 }
        }
    }

    /// A long run of consecutive columns of `tensor` (`[H, W, C]`) that are equal bit for bit in
    /// every row, if one of at least two exists: the longest run of equal pixels in the first row,
    /// narrowed to the longest part that holds in each next row. (A letterbox band at the right
    /// is found whole; so is any band the first row does not break.)
    ///
    /// Each row costs one overlapping `memcmp` (pixels `a+1..<b` against `a..<b−1`: equal exactly
    /// when the run's pixels are all equal), about 0.3 MB in all for a 257 input.
    static func longestColumnRun(in tensor: Tensor) -> Range<Int>? {
        let (height, width, channels) = (tensor.shape[0], tensor.shape[1], tensor.shape[2])
        let pixelBytes = channels * MemoryLayout<Float>.stride, rowBytes = width * pixelBytes
        return tensor.withUnsafeBufferPointer { p -> Range<Int>? in
            let base = UnsafeRawPointer(p.baseAddress!)
            func equalsPrevious(_ y: Int, _ x: Int) -> Bool {
                let pixel = base + y * rowBytes + x * pixelBytes
                return memcmp(pixel - pixelBytes, pixel, pixelBytes) == 0
            }
            guard var band = longestRun(count: width, { equalsPrevious(0, $0) }) else { return nil }
            for y in 1..<height {
                let first = base + y * rowBytes + band.lowerBound * pixelBytes
                if memcmp(first, first + pixelBytes, (band.count - 1) * pixelBytes) == 0 { continue }
                guard let part = longestRun(count: band.count, { equalsPrevious(y, band.lowerBound + $0) }) else { return nil }
                band = (band.lowerBound + part.lowerBound)..<(band.lowerBound + part.upperBound)
            }
            return band
        }
    }

    /// The longest run `start..<end` (at least two long) of `0..<count` in which `equalsPrevious(i)`
    /// holds for every `i` after `start`.
    private static func longestRun(count: Int, _ equalsPrevious: (Int) -> Bool) -> Range<Int>? {
        guard count >= 2 else { return nil }
        var best: Range<Int>? = nil, start = 0
        for i in 1...count {
            if i < count && equalsPrevious(i) { continue }
            if i - start >= 2 && i - start > (best?.count ?? 0) { best = start..<i }
            start = i
        }
        return best
    }
}
