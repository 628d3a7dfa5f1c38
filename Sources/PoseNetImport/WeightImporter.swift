import PoseNet
import Protobuf
import PoseCore
import TensorFlowGraphDef
import Foundation
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Turns a published PoseNet model file into a PoseKit weight bundle.
///
/// The format is recognized from the content, not the file name (``detectFormat(_:)``), so a
/// renamed file still imports and a wrong file fails with a clear message:
///
/// ```swift
/// let imported = try WeightImporter.importModel(at: URL(fileURLWithPath: "PoseNetMobileNet075S16FP16.mlmodel"))
/// try imported.bundleWriter().write(to: URL(fileURLWithPath: "Weights/mobilenet075.pkw"))
/// ```
public enum WeightImporter {
    /// Model file formats PoseKit imports.
    public enum Format: String, Sendable, CaseIterable {
        /// Core ML `.mlmodel` protobuf with a NeuralNetwork body.
        case coreML = "coreml"
        /// Frozen TensorFlow GraphDef `.pb`.
        case tensorFlowGraphDef = "tensorflow-graphdef"
    }

    /// Reads `url` and imports it, detecting the format from its bytes.
    ///
    /// - Throws: ``ImportError`` (one line, naming the file) when the file cannot be read, is
    ///   not a supported format, or is not a PoseNet MobileNetV1 PoseKit can run.
    public static func importModel(at url: URL) throws -> ImportedWeights {
        let file = url.path
        return try importModel(bytes: readFile(file), file: file)
    }

    /// The whole file, with errno-based one-line errors ("No such file or directory"); a FIFO or
    /// device is refused without waiting on it (`RegularFile`).
    static func readFile(_ path: String) throws -> [UInt8] {
        do { return [UInt8](try RegularFile.contents(atPath: path)) } catch let error as RegularFileError {
            throw ImportError.unreadable(file: path, detail: error.problem)
        }
    }

    /// Imports model bytes; `file` names them in errors and in the manifest's source.
    public static func importModel(bytes: [UInt8], file: String) throws -> ImportedWeights {
        switch try detectFormat(bytes, file: file) {
        case .coreML: return try CoreMLImporter.read(bytes, file: file)
        case .tensorFlowGraphDef: return try GraphDefImporter.read(bytes, file: file)
        }
    }

    /// Recognizes a format from the first protobuf fields:
    /// a Core ML `Model` starts with `specificationVersion` (field 1, a varint) and holds a
    /// description (field 2, a message); a `GraphDef` starts with a node (field 1, a message)
    /// whose own first fields are its name and op (strings).
    public static func detectFormat(_ bytes: [UInt8], file: String) throws -> Format {
        if bytes.starts(with: WeightBundleHeader.magic) {
            throw ImportError.unknownFormat(file: file, detail: "this is already a PoseKit weight bundle")
        }
        guard !bytes.isEmpty else { throw ImportError.unknownFormat(file: file, detail: "the file is empty") }
        let root = ProtobufMessage(buffer: bytes)
        // Look at the first field only: cheap, and enough to tell the two apart.
        var position = 0
        guard let key = try? root.readVarint(&position) else {
            throw ImportError.unknownFormat(file: file, detail: "not a protobuf file (Core ML .mlmodel or TensorFlow .pb expected)")
        }
        switch (key >> 3, key & 7) {
        case (1, 0):
            return .coreML
        case (1, 2):
            guard let length = try? root.readVarint(&position), length <= UInt64(bytes.count - position),
                  let node = try? ProtobufFields(root.message(position..<(position + Int(length)))),
                  (try? node.string(GraphDef.nodeName).isEmpty) == false else {
                throw ImportError.unknownFormat(file: file, detail: "first protobuf field is not a GraphDef node")
            }
            return .tensorFlowGraphDef
        default:
            throw ImportError.unknownFormat(file: file, detail: "not a Core ML .mlmodel or TensorFlow GraphDef .pb (first protobuf key \(key))")
        }
    }
}
