import PoseCore
import Foundation

/// Which PoseNet weights a `PoseDetector` (module `Detectors`) runs: one of the bundled models by name, or a
/// `.pkw` weight bundle anywhere.
///
///     let fast = try PoseDetector(model: .mobilenet050)
///     let mine = try PoseDetector(model: .bundle(URL(fileURLWithPath: "/data/mobilenet075.pkw")))
///
/// Names are found by ``/Tensor/ModelLocator`` (see there for where it looks).
public enum PoseModel: Sendable, Hashable, CustomStringConvertible {
    /// MobileNetV1 with depth multiplier 0.75: the default, and the most accurate.
    case mobilenet075
    /// MobileNetV1 with depth multiplier 0.5: about half the work of 0.75, less accurate.
    case mobilenet050
    /// A weight bundle (`.pkw`) at this file URL.
    case bundle(URL)

    /// The model the `posekit` command runs when none is given.
    public static let `default` = PoseModel.mobilenet075

    /// The short name (`"mobilenet075"`) or the bundle's path.
    public var description: String {
        switch self {
        case .mobilenet075: return "mobilenet075"
        case .mobilenet050: return "mobilenet050"
        case .bundle(let url): return url.path
        }
    }

    /// The weight bundle's file: the URL given, or where ``/Tensor/ModelLocator`` finds the named model.
    ///
    /// - Throws: ``/Tensor/ModelLocator/NotFound`` naming the places searched and how to get the weights.
    public func bundleURL() throws -> URL {
        switch self {
        case .mobilenet075, .mobilenet050: return try ModelLocator.resolve(description)
        case .bundle(let url): return url
        }
    }
}
