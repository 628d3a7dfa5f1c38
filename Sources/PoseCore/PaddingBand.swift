/// The rows or columns of a network input that hold nothing but padding: the band a letterbox
/// leaves, which the network then computes once instead of row by row.
///
/// A letterboxed landscape frame fills the top of the square input and leaves rows at the bottom
/// one color (black after ``InputScaling``, so every value is the channel's `bias`); a portrait
/// frame leaves columns at the right. For a 640×480 frame at input 257 that is rows `194..<257`;
/// for 720×1280, columns `145..<257`. The network-input writer (FrameIO's `NetworkInputWriter`,
/// property `paddingBand`) knows the band from its resampling taps: the rows (columns) no tap of
/// the frame reaches. PoseNet's `PoseNetModel.run(padding:)` and `PoseFinding.detect(…padding:…)`
/// take it, so the network finds it without looking at the input.
///
/// What a band promises, bit for bit:
/// - ``Axis-swift.enum/rows``: the input rows in ``range`` are all equal (`[W, 3]` each);
/// - ``Axis-swift.enum/columns``: within each row, the pixels at the columns in ``range`` are all equal.
///
/// A network given a band that breaks this computes wrong heads (it copies one row or column
/// over the others); when unsure, pass no band (`nil`), which computes everything.
///
///     let band = PaddingBand(axis: .rows, range: 194..<257)   // a 640x480 frame at 257
///     let poses = try detector.detect(mappingTo: placement.inputToImage, padding: band)
public struct PaddingBand: Sendable, Equatable, Hashable, CustomStringConvertible {
    /// Whether the band is whole rows of the input or whole columns.
    public enum Axis: Sendable, Equatable, Hashable {
        /// Input rows (a landscape frame's letterbox, at the bottom).
        case rows
        /// Input columns (a portrait frame's letterbox, at the right).
        case columns
    }

    /// Rows or columns.
    public var axis: Axis
    /// The rows (columns) of the band, in input pixels: `0 ≤ lowerBound`, `upperBound ≤` the input's side.
    public var range: Range<Int>

    public init(axis: Axis, range: Range<Int>) {
        self.axis = axis
        self.range = range
    }

    /// `"rows 194..<257"`, `"columns 145..<257"`.
    public var description: String { "\(axis == .rows ? "rows" : "columns") \(range)" }
}
