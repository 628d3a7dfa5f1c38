import Foundation
import PoseCore

/// How well one repetition was done, measured at (or, for a burpee's floor phase, before) its
/// turning point. Lengths are in torso lengths (shoulder center to hip center), the person's own
/// size; a field is nil when the body parts it needs were not seen well enough.
public enum RepetitionCue: Sendable, Equatable {
    /// Squats and lunges, at the deepest point.
    /// - depth: how far the hips dropped, as a fraction of the standing hip height (ankles to hips).
    /// - kneeAngle: the smaller knee angle, degrees (180 = straight leg; about 90 = thighs parallel).
    /// - hipsBelowKnees: whether the hip center was lower in the image than the knees.
    case depth(depth: Double?, kneeAngle: Double?, hipsBelowKnees: Bool?)
    /// Jumping jacks, at the most open moment.
    /// - armAngle: the arms' elevation from hanging down, degrees (180 = straight overhead), mean of both arms.
    /// - feetApart: ankle distance ÷ shoulder width (above 1 = feet wider than the shoulders).
    case amplitude(armAngle: Double?, feetApart: Double?)
    /// Burpees.
    /// - chestHeight: lowest height of the shoulders above the hands in the floor phase, torso lengths.
    /// - chestToFloor: whether that height was under ``chestToFloorHeight`` (the chest went down).
    /// - jumpHeight: how far the ankles rose above the floor at the jump, torso lengths.
    case burpee(chestHeight: Double?, chestToFloor: Bool?, jumpHeight: Double?)

    /// Shoulders closer than this to the hands (torso lengths) count as chest to the floor:
    /// a straight-arm plank holds them about one arm length (≈ 1.1 torso) above the hands.
    public static let chestToFloorHeight = 0.35

    /// Appends the cue's fields as JSON members, in documented order (`"name": value`, null when
    /// unknown), separated by commas.
    func appendMembers(to json: inout JSONText) {
        func number(_ x: Double?, _ decimals: Int) {
            if let x { json.number(x, decimals: decimals) } else { json.raw("null") }
        }
        func flag(_ b: Bool?) {
            switch b {
            case .some(true): json.raw("true")
            case .some(false): json.raw("false")
            case nil: json.raw("null")
            }
        }
        switch self {
        case .depth(let depth, let knee, let below):
            json.raw("\"depth\": "); number(depth, JSONText.Decimals.proportions)
            json.raw(", \"knee_angle\": "); number(knee, JSONText.Decimals.degrees)
            json.raw(", \"hips_below_knees\": "); flag(below)
        case .amplitude(let arm, let feet):
            json.raw("\"arm_angle\": "); number(arm, JSONText.Decimals.degrees)
            json.raw(", \"feet_apart\": "); number(feet, JSONText.Decimals.proportions)
        case .burpee(let chest, let toFloor, let jump):
            json.raw("\"chest_height\": "); number(chest, JSONText.Decimals.proportions)
            json.raw(", \"chest_to_floor\": "); flag(toFloor)
            json.raw(", \"jump_height\": "); number(jump, JSONText.Decimals.proportions)
        }
    }

    /// A short ASCII line for on-frame captions, e.g. `knee 88 deg, hips below knees`.
    public var caption: String {
        func n(_ x: Double?, _ digits: Int) -> String { x.map { String(format: "%.\(digits)f", $0) } ?? "?" }
        switch self {
        case .depth(let depth, let knee, let below):
            var parts = ["depth \(depth.map { "\(Int(($0 * 100).rounded()))%" } ?? "?")", "knee \(n(knee, 0)) deg"]
            if let below { parts.append(below ? "hips below knees" : "hips above knees") }
            return parts.joined(separator: ", ")
        case .amplitude(let arm, let feet):
            return "arms \(n(arm, 0)) deg, feet \(n(feet, 1))x shoulders"
        case .burpee(let chest, let toFloor, let jump):
            let chestText = toFloor.map { $0 ? "chest to floor" : "chest \(n(chest, 1)) up" } ?? "chest ?"
            return "\(chestText), jump \(n(jump, 2))"
        }
    }
}
