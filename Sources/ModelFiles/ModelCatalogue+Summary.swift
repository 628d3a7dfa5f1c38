import Foundation
import PoseKit

extension ModelCatalogue.Model {
    /// What `posekit info NAME` prints for a model of several bundles: what it is, each bundle
    /// with where it is found (or the command that installs it), its source file, SHA-256 and licence.
    public var summaryLines: [String] {
        var lines = ["\(name): \(summary)", "  family        \(family.rawValue)"]
        for bundle in bundles {
            let found = (try? ModelLocator.resolve(bundle.name))?.path ?? "not installed; run `\(ModelLocator.installCommand)`"
            lines.append("  bundle        \(bundle.name) → \(found)")
            lines.append("    source      \(bundle.source.directory.map { $0 + "/" } ?? "")\(bundle.source.fileName) (\(bundle.source.format)), sha256 \(bundle.source.sha256)")
            lines.append("    license     \(bundle.license.spdx): \(bundle.license.attribution)")
        }
        return lines
    }
}
