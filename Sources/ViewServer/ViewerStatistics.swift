import Foundation
import PoseCore

/// What the viewers have shown: frames, and the delay from each frame's arrival from the source
/// to the page's acknowledgement that it drew it (on this machine's monotonic clock; over loopback
/// the acknowledgement's own trip is a few tens of microseconds).
public final class ViewerStatistics: @unchecked Sendable {
    /// The figures at one moment.
    public struct Snapshot: Sendable {
        /// Frames shown, by every viewer together.
        public var framesShown: Int
        /// Viewers connected now.
        public var viewers: Int
        /// Viewers that have connected so far.
        public var viewersSeen: Int
        /// The last `capacity` delays, seconds, oldest first.
        public var recentDelays: [Double]

        /// The delays' median and 95th percentile (seconds; NaN when none).
        public var delayMedian: Double { Median.of(recentDelays) }
        public var delayP95: Double { Self.percentile(recentDelays, 0.95) }

        /// The value below which `fraction` of `values` lie (nearest rank); NaN when empty.
        public static func percentile(_ values: [Double], _ fraction: Double) -> Double {
            guard !values.isEmpty else { return .nan }
            let sorted = values.sorted()
            let rank = Int((fraction * Double(sorted.count)).rounded(.up)) - 1
            return sorted[min(max(rank, 0), sorted.count - 1)]
        }
    }

    /// How many recent delays are kept (memory stays flat on an endless stream).
    public static let capacity = 4096

    private let lock = NSLock()
    private var framesShown = 0
    private var viewers = 0
    private var viewersSeen = 0
    private var delays: [Double] = []
    private var nextSlot = 0
    private var last: Double?

    func connected() {
        lock.lock(); defer { lock.unlock() }
        viewers += 1
        viewersSeen += 1
    }

    func disconnected() {
        lock.lock(); defer { lock.unlock() }
        viewers -= 1
    }

    /// A viewer has shown a frame `delay` seconds after it arrived.
    func shown(delay: Double) {
        lock.lock(); defer { lock.unlock() }
        framesShown += 1
        last = delay
        if delays.count < Self.capacity {
            delays.append(delay)
        } else {
            delays[nextSlot] = delay
            nextSlot = (nextSlot + 1) % Self.capacity
        }
    }

    /// The last delay (seconds), if any.
    var lastDelay: Double? {
        lock.lock(); defer { lock.unlock() }
        return last
    }

    /// The figures now, with the last `recent` delays (at most ``capacity``).
    public func snapshot(recent: Int = capacity) -> Snapshot {
        lock.lock(); defer { lock.unlock() }
        let ordered = delays.count < Self.capacity ? delays : Array(delays[nextSlot...] + delays[..<nextSlot])
        return Snapshot(framesShown: framesShown, viewers: viewers, viewersSeen: viewersSeen, recentDelays: Array(ordered.suffix(recent)))
    }
}
