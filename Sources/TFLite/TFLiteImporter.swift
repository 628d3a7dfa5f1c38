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
        let known = knownModels[sha256]
        let recordedLicense = known.map { WeightManifest.License(spdx: "Apache-2.0", attribution: mediapipeAttribution($0)) }
            ?? license ?? WeightManifest.License(spdx: "NOASSERTION", attribution: "not stated by the source file; pass --license and --attribution to `posekit import`")
        return ImportedGraph(graph: graph, model: model, name: URL(fileURLWithPath: fileName).deletingPathExtension().lastPathComponent,
                             source: .init(fileName: fileName, sha256: sha256, format: "tflite", notes: notes),
                             license: recordedLicense)
    }

    /// The published models whose licence PoseKit knows, by SHA-256: MediaPipe 0.10.14's six
    /// (`../shared/weights/mediapipe-0.10.14/PROVENANCE.txt`), Apache-2.0.
    public static let knownModels: [String: String] = [
        "11c272b891e1a99ab034208e23937a8008388cf11ed2a9d776ed3d01d0ba00e3": "hand_landmark_full",
        "048edd3645c9bf7397d19a9f6e3a42957d6e414c9bea6598030a2e9b624156e6": "hand_landmark_lite",
        "1b14e9422c6ad006cde6581a46c8b90dd573c07ab7f3934b5589e7cea3f89a54": "palm_detection_full",
        "e9a4aaddf90dda56a87235303cf00e4c2d3fb28725f68fd88772997dac905c18": "palm_detection_lite",
        "9ba9dd3d42efaaba86b4ff0122b06f29c4122e756b329d89dca1e297fd8f866c": "pose_detection",
        "e9a5c5cb17f736fafd4c2ec1da3b3d331d6edbe8a0d32395855aeb2cdfd64b9f": "pose_landmark_full",
    ]

    static func mediapipeAttribution(_ model: String) -> String {
        "MediaPipe \(model) model from the mediapipe 0.10.14 Python wheel (github.com/google-ai-edge/mediapipe), "
            + "Copyright Google LLC, licensed under the Apache License, Version 2.0. Repackaged by PoseKit: fp16 weights "
            + "widened and sparse weights densified (values unchanged), layouts converted for PoseKit's kernels."
    }
}
