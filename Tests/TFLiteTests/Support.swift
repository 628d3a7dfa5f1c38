import Foundation
@testable import TFLite

/// Where `../shared` is: env POSEKIT_SHARED, else beside the repository root (derived from this file's path).
let sharedDirectory: URL = {
    if let env = ProcessInfo.processInfo.environment["POSEKIT_SHARED"], !env.isEmpty { return URL(fileURLWithPath: env) }
    return URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent().appendingPathComponent("shared")
}()

/// The six MediaPipe 0.10.14 models.
let mediapipeDirectory = sharedDirectory.appendingPathComponent("weights/mediapipe-0.10.14")
let mediapipeModels = ["pose_detection", "pose_landmark_full", "palm_detection_full", "palm_detection_lite",
                       "hand_landmark_full", "hand_landmark_lite"]

func mediapipeURL(_ name: String) -> URL { mediapipeDirectory.appendingPathComponent("\(name).tflite") }

/// Each model's bytes, read once per test process.
let mediapipeBytes: [String: [UInt8]] = {
    Dictionary(uniqueKeysWithValues: mediapipeModels.map { ($0, (try? [UInt8](Data(contentsOf: mediapipeURL($0)))) ?? []) })
}()

/// Each model imported once per test process (nil if it failed: the import test reports why).
let mediapipeImports: [String: ImportedGraph] = {
    Dictionary(uniqueKeysWithValues: mediapipeModels.compactMap { name in
        (try? TFLiteImporter.importModel(bytes: mediapipeBytes[name]!, file: mediapipeURL(name).path)).map { (name, $0) }
    })
}()

/// A fresh temporary directory, removed after `body`.
func withTemporaryDirectory<R>(_ body: (URL) throws -> R) throws -> R {
    let url = FileManager.default.temporaryDirectory.appendingPathComponent("tflite-tests-\(UUID().uuidString)")
    try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
    defer { try? FileManager.default.removeItem(at: url) }
    return try body(url)
}
