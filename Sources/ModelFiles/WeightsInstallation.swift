import Foundation
import PoseKit
import PoseNetImport
import TFLite

/// `posekit weights install`: every bundle of `ModelCatalogue` into a directory (the per-user
/// one): the published files imported, each checked against the catalogue's SHA-256 first;
/// ActionNet's bundle copied from the checkout's `Weights/`. Each file is replaced atomically.
public enum WeightsInstallation {
    /// Installs every bundle into `destination` (which exists), the published files read from
    /// `sourceDirectory` (a folder per source, as `../shared/weights`); a line per bundle through `print`.
    public static func install(from sourceDirectory: String, to destination: String, print: (String) -> Void) throws {
        for bundle in ModelCatalogue.bundles {
            let target = "\(destination)/\(bundle.name).\(ModelLocator.bundleExtension)"
            guard let directory = bundle.source.directory else {
                try Self.copyCommitted(bundle, to: target, print: print)
                continue
            }
            let source = "\(sourceDirectory)/\(directory)/\(bundle.source.fileName)"
            let bytes = try ModelFileError.reading(source) { [UInt8](try RegularFile.contents(atPath: source)) }
            let sha256 = SHA256.hexDigest(bytes)
            guard sha256 == bundle.source.sha256 else {
                throw ModelFileError("\(source): SHA-256 \(sha256) is not the published file's (\(bundle.source.sha256)); refusing to install it as \(bundle.name)")
            }
            let encoded = try ModelFileError.reading(source) { () throws -> [UInt8] in
                if bundle.source.format == "tflite" {
                    return try TFLiteImporter.importModel(bytes: bytes, file: source).bundleWriter().encoded()
                }
                return try WeightImporter.importModel(at: URL(fileURLWithPath: source)).bundleWriter(storage: .automatic).encoded()
            }
            try ModelFileOutput.write(encoded, to: target)
            print("installed \(bundle.name): imported \(source) → \(target)")
        }
    }

    /// Copies a bundle PoseKit trains and commits (ActionNet's) from the checkout's `Weights/`.
    static func copyCommitted(_ bundle: ModelCatalogue.Bundle, to target: String, print: (String) -> Void) throws {
        guard let checkout = ModelLocator.checkoutWeightsDirectory else {
            throw ModelFileError("the PoseKit checkout posekit was built from is gone: cannot copy \(bundle.source.fileName)")
        }
        let source = "\(checkout)/\(bundle.source.fileName)"
        let weights = try ModelFileError.reading(source) { try WeightBundle(contentsOf: URL(fileURLWithPath: source)) }
        try ModelFileError.reading(source) { try weights.requireKind(ModelLocator.actionModel) }
        let bytes = try ModelFileError.reading(source) { [UInt8](try RegularFile.contents(atPath: source)) }
        try ModelFileOutput.write(bytes, to: target)
        print("installed \(bundle.name): copied \(source) → \(target)")
    }
}
