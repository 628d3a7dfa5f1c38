/// Puts decoded pose frames in time order before they reach the `ActionEngine`, whose windows,
/// repetition counts and seconds per label all assume time only moves forward.
///
/// - A file is read whole: `sorted(_:)` sorts its frames by time and refuses duplicates.
/// - A stream cannot be sorted without waiting for its end: `admit(_:)` refuses the first frame
///   that does not come strictly after the one before it.
///
/// Times must also agree with frame numbers (a later time has a larger frame number); frames are
/// named by their `frame` number in every refusal.
public struct PoseFrameOrder {
    private var previous: PoseFrame?

    public init() {}

    /// Checks the next frame of a stream against the previous one and returns it.
    public mutating func admit(_ frame: PoseFrame) throws -> PoseFrame {
        if let previous {
            if frame.time < previous.time {
                throw PoseDataError.unorderedPoses(
                    "frame \(frame.frame) (time \(Self.seconds(frame.time))) comes after frame \(previous.frame) "
                    + "(time \(Self.seconds(previous.time))) but is earlier; a stream must be in time order "
                    + "(give a file to have it sorted)")
            }
            try Self.checkSuccession(previous, frame)
        }
        previous = frame
        return frame
    }

    /// All frames of a file sorted by time (stable); refuses duplicated frames or times.
    public static func sorted(_ frames: [PoseFrame]) throws -> [PoseFrame] {
        let ordered = frames.enumerated().sorted { a, b in
            a.element.time != b.element.time ? a.element.time < b.element.time : a.offset < b.offset
        }.map(\.element)
        for (earlier, later) in zip(ordered, ordered.dropFirst()) { try checkSuccession(earlier, later) }
        return ordered
    }

    /// `later` (not earlier in time than `earlier`) must be a different frame at a later time
    /// with a larger frame number.
    private static func checkSuccession(_ earlier: PoseFrame, _ later: PoseFrame) throws {
        if later.frame == earlier.frame {
            throw PoseDataError.unorderedPoses("frame \(later.frame) appears twice")
        }
        if later.time == earlier.time {
            throw PoseDataError.unorderedPoses(
                "frames \(earlier.frame) and \(later.frame) have the same time \(seconds(later.time))")
        }
        if later.frame < earlier.frame {
            throw PoseDataError.unorderedPoses(
                "frame \(later.frame) has a later time (\(seconds(later.time))) than frame \(earlier.frame) "
                + "(\(seconds(earlier.time))); frame numbers and times disagree")
        }
    }

    private static func seconds(_ t: Double) -> String {
        let millis = (t * 1000).rounded()
        return "\(millis / 1000) s"
    }
}
