import Foundation

/// Why a `.pkw` weight bundle could not be read, written or queried.
///
/// Every case names the file, and ``description`` is one line, so the `posekit` command can
/// print it as is.
public enum WeightBundleError: Error, CustomStringConvertible, Equatable {
    /// The file could not be opened, sized, mapped or written.
    case io(file: String, detail: String)
    /// The file does not start with the `PKWEIGHT` magic.
    case notABundle(file: String)
    /// The header's format version is not one this PoseKit reads.
    case unsupportedVersion(file: String, version: Int, supported: Int)
    /// The file is shorter than its header says.
    case truncated(file: String, detail: String)
    /// The stored checksum does not match the bytes.
    case checksumMismatch(file: String, stored: UInt64, computed: UInt64)
    /// The header or manifest is inconsistent (bad JSON, offsets out of range, ...).
    case corrupt(file: String, detail: String)
    /// The bundle holds weights for another network (its manifest's `kind`).
    case wrongKind(file: String, kind: String, expected: String)
    /// No tensor of that name in the bundle.
    case missingTensor(file: String, name: String)
    /// A tensor handed to ``WeightBundleWriter`` is inconsistent (values vs. shape, duplicates).
    case invalidTensor(name: String, detail: String)

    public var description: String {
        switch self {
        case .io(let file, let detail):
            return "\(file): \(detail)"
        case .notABundle(let file):
            return "\(file): not a PoseKit weight bundle (no PKWEIGHT magic); import models with `posekit import`"
        case .unsupportedVersion(let file, let version, let supported):
            return "\(file): weight bundle format version \(version) is not supported (this PoseKit reads versions 1 to \(supported)); re-import the model"
        case .truncated(let file, let detail):
            return "\(file): truncated weight bundle: \(detail)"
        case .checksumMismatch(let file, let stored, let computed):
            return "\(file): checksum mismatch (stored \(hex(stored)), computed \(hex(computed))): the file is corrupt; re-import it"
        case .corrupt(let file, let detail):
            return "\(file): corrupt weight bundle: \(detail)"
        case .wrongKind(let file, let kind, let expected):
            return "\(file): holds \(kind) weights, not \(expected) weights"
        case .missingTensor(let file, let name):
            return "\(file): no tensor named '\(name)'"
        case .invalidTensor(let name, let detail):
            return "tensor '\(name)': \(detail)"
        }
    }

    private func hex(_ v: UInt64) -> String {
        let digits = String(v, radix: 16)
        return "0x" + String(repeating: "0", count: 16 - digits.count) + digits
    }
}

extension WeightBundleError: LocalizedError {
    /// ``description``: `localizedDescription` is the one line `posekit` prints after `posekit: error: `.
    public var errorDescription: String? { description }
}
