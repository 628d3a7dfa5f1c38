import Foundation
import ModelGraph
import Tensor

/// A `.tflite` file imported as a `Graph`, with what a bundle records about where it came from.
public struct ImportedGraph: Sendable {
    /// The mapped, validated graph.
    public let graph: Graph
    /// The parsed file (its operator list as stored, with `DEQUANTIZE` and `DENSIFY`).
    public let model: TFLiteModel
    /// A short name: the file name without extension (`pose_detection`).
    public let name: String
    /// File name, SHA-256 and format (`"tflite"`), plus the model's description and schema version.
    public let source: WeightManifest.Source
    /// The weights' licence: from ``TFLiteImporter/knownModels`` by SHA-256, or as given.
    public let license: WeightManifest.License

    /// A `.pkw` bundle writer holding the graph and this provenance.
    public func bundleWriter() throws -> WeightBundleWriter {
        try graph.bundleWriter(name: name, source: source, license: license)
    }
}

/// Imports TFLite flatbuffers (`.tflite`) as `Graph`s: ``TFLiteModel`` reads the file,
/// ``TFLiteGraphMapper`` maps it.
///
/// ```swift
/// let imported = try TFLiteImporter.importModel(at: URL(fileURLWithPath: "pose_detection.tflite"))
/// try imported.bundleWriter().write(to: URL(fileURLWithPath: "Weights/pose_detection.pkw"))
/// ```
public enum TFLiteImporter {
    /// Largest file accepted (FlatBuffers offsets are 32-bit).
    public static let maxFileSize = Int(UInt32.max)

    /// Whether `bytes` look like a TFLite file (the `TFL3` identifier at byte 4).
    public static func isTFLite(_ bytes: [UInt8]) -> Bool {
        bytes.count >= 8 && bytes[4..<8].elementsEqual("TFL3".utf8)
    }

    /// Reads and imports the regular file at `url`.
    ///
    /// - Parameter license: the licence to record when the file is not one of ``knownModels``
    ///   (nil: `NOASSERTION`, the SPDX word for "not stated").
    /// - Throws: ``TFLiteError`` naming the file and the problem.
    public static func importModel(at url: URL, license: WeightManifest.License? = nil) throws -> ImportedGraph {
        let path = url.path
        let attributes: [FileAttributeKey: Any]
        do { attributes = try FileManager.default.attributesOfItem(atPath: path) } catch {
            throw TFLiteError(file: path, "cannot read: no such file or not accessible")
        }
        // A regular file only: a FIFO named like a model must not make the import wait.
        guard attributes[.type] as? FileAttributeType == .typeRegular else { throw TFLiteError(file: path, "not a regular file") }
        let size = (attributes[.size] as? NSNumber)?.intValue ?? 0
        guard size <= maxFileSize else { throw TFLiteError(file: path, "\(size) bytes is larger than a TFLite flatbuffer can be") }
        let bytes: [UInt8]
        do { bytes = [UInt8](try Data(contentsOf: url)) } catch { throw TFLiteError(file: path, "cannot read: \(error.localizedDescription)") }
        return try importModel(bytes: bytes, file: path, license: license)
    }

    /// Imports a TFLite model held in `bytes`; `file` names it in errors and its last path
    /// component is recorded as the source file name.
    public static func importModel(bytes: [UInt8], file: String, license: WeightManifest.License? = nil) throws -> ImportedGraph {
        let model = try TFLiteModel(bytes: bytes, file: file)
        let graph = try TFLiteGraphMapper.graph(from: model, file: file)
        let fileName = URL(fileURLWithPath: file).lastPathComponent
        let sha256 = SHA256.hexDigest(bytes)
        var notes = ["schemaVersion": String(model.version)]
        if let description = model.description, !description.isEmpty { notes["description"] = description }
        let recordedLicense = ModelCatalogue.bundle(sha256: sha256)?.license
            ?? license ?? WeightManifest.License(spdx: "NOASSERTION", attribution: "not stated by the source file; pass --license and --attribution to `posekit import`")
        return ImportedGraph(graph: graph, model: model, name: URL(fileURLWithPath: fileName).deletingPathExtension().lastPathComponent,
                             source: .init(fileName: fileName, sha256: sha256, format: "tflite", notes: notes),
                             license: recordedLicense)
    }

    /// The published models whose licence PoseKit knows, by SHA-256: the TFLite files of
    /// ``/Tensor/ModelCatalogue`` (MediaPipe 0.10.14's six), name by hash.
    public static var knownModels: [String: String] {
        Dictionary(uniqueKeysWithValues: ModelCatalogue.bundles.filter { $0.source.format == "tflite" }.map { ($0.source.sha256, $0.name) })
    }
}
