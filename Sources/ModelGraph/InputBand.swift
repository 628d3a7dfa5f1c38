/// Rows (or columns) of a graph's input that are all equal, known to the caller: a letterbox's
/// padding (PoseNet's network-input writer knows which rows no frame pixel reaches). A runner
/// given one (``GraphRunner/runInPlace(band:)``) computes, in each step of its band chain, one of
/// the output rows (columns) the band gives and copies it only where a later step reads it:
/// the same values as without the band, less work.
///
/// Nothing checks the promise: a band whose rows (columns) are not all equal gives wrong outputs.
public struct InputBand: Sendable, Equatable {
    /// Whether ``range`` counts rows or columns.
    public enum Axis: Sendable, Equatable { case rows, columns }
    public var axis: Axis
    /// The equal rows (columns) of the input.
    public var range: Range<Int>

    public init(axis: Axis, range: Range<Int>) {
        self.axis = axis
        self.range = range
    }
}
