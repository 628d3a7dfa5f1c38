/// A run's failure as one line: an output directory a batch cannot create (``BatchRun``), pose
/// lines an action classifier cannot use (``/ActionNet/ActionEngine``).
public struct RunError: Error, CustomStringConvertible {
    /// The line.
    public let message: String

    /// An error saying `message`.
    public init(_ message: String) { self.message = message }

    public var description: String { message }
}
