/// Share `index` of `count` of a list: positions `index`, `index + count`, ... (0-based).
/// Round-robin keeps shares within one input of each other and needs no hashing: every process
/// given the same list and count picks a disjoint share, and together they cover the list.
public struct Shard: Equatable, Sendable {
    /// Which share (0-based), of how many.
    public let index: Int
    public let count: Int

    /// Parses `I/N`, N within `counts`.
    public init?(_ text: String, counts: ClosedRange<Int>) {
        let parts = text.split(separator: "/", omittingEmptySubsequences: false)
        guard parts.count == 2, let i = Int(parts[0]), let n = Int(parts[1]),
              counts.contains(n), i >= 0, i < n else { return nil }
        index = i
        count = n
    }

    /// Whether the item at `position` of the list is in this share.
    public func contains(position: Int) -> Bool { position % count == index }
}
