import Foundation

/// Picks the person to analyze: the largest box (Apple's rule), with hysteresis.
///
/// The current choice is kept until another person's box has been at least ``switchRatio``
/// times larger for ``switchDuration`` seconds, or until the current person has been absent for
/// ``lostAfter`` seconds; so two people of similar size do not make the choice flicker.
public struct ProminentPersonSelector: Sendable {
    public var switchRatio: Double = 1.3
    public var switchDuration: Double = 0.5
    public var lostAfter: Double = 0.25

    private var current: Int?
    private var currentLastSeen = -Double.infinity
    private var challenger: Int?
    private var challengerSince = 0.0

    public init() {}

    /// The current prominent track ID (nil until someone is seen).
    public var currentTrackID: Int? { current }

    /// Chooses among one frame's tracked poses; returns the prominent one, or nil when the
    /// prominent person is not in this frame.
    public mutating func select(_ candidates: [TrackedPose], time: Double) -> TrackedPose? {
        guard let largest = candidates.max(by: { $0.box.area < $1.box.area }) else {
            if time - currentLastSeen > lostAfter { current = nil }
            challenger = nil
            return nil
        }
        guard let cur = current, let mine = candidates.first(where: { $0.trackID == cur }) else {
            // No current person, or they are missing: wait `lostAfter` before switching.
            if current == nil || time - currentLastSeen > lostAfter {
                current = largest.trackID
                currentLastSeen = time
                challenger = nil
                return largest
            }
            return nil
        }
        currentLastSeen = time
        if largest.trackID != cur && largest.box.area > switchRatio * mine.box.area {
            if challenger != largest.trackID { challenger = largest.trackID; challengerSince = time }
            if time - challengerSince >= switchDuration {
                current = largest.trackID
                challenger = nil
                return largest
            }
        } else {
            challenger = nil
        }
        return mine
    }
}
