import CLibJPEG
import Foundation
import FrameIO
@testable import MediaPipe
import Tensor

/// The shared data folder: `$POSEKIT_SHARED`, else `<repo root>/../shared`.
func sharedFolder() -> URL {
    if let path = ProcessInfo.processInfo.environment["POSEKIT_SHARED"] { return URL(fileURLWithPath: path) }
    let repoRoot = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
    return repoRoot.deletingLastPathComponent().appendingPathComponent("shared")
}

/// MediaPipe's golden data (`shared/reference/mediapipe`, README there): pipeline JSON per image,
/// MediaPipe's own model inputs and raw outputs for six of them.
enum MediaPipeReference {
    static let folder = sharedFolder().appendingPathComponent("reference/mediapipe")
    static let pipelines = folder.appendingPathComponent("pipelines")

    /// The 14 images of the pipeline goldens.
    static let images = [
        "coco_000000000785", "coco_000000040083", "coco_000000196141", "coco_000000197388",
        "h36m_S1_Directions_1.54138969_000001", "h36m_S5_SittingDown.54138969_002061",
        "h36m_S7_Greeting.55011271_000396", "h36m_S8_WalkDog_1.55011271_000026",
        "mpii_004645041", "mpii_005808361", "mpii_051423444", "mpii_052475643", "mpii_060754485", "person-linda",
    ]
    /// The six with MediaPipe's exact model inputs and raw outputs (`mp_*.npy`).
    static let imagesWithTensors = [
        "coco_000000000785", "coco_000000040083", "h36m_S7_Greeting.55011271_000396",
        "mpii_004645041", "mpii_060754485", "person-linda",
    ]

    static func imagePath(_ name: String) -> String {
        let media = sharedFolder().appendingPathComponent("media/images")
        return (name == "person-linda" ? media.appendingPathComponent("extra/person-linda.jpg") : media.appendingPathComponent(name + ".jpg")).path
    }

    /// The image as MediaPipe's goldens saw it: decoded by libjpeg (PIL), not ffmpeg (whose IDCT
    /// and chroma upsampling differ by up to 22 levels on these files).
    static func image(_ name: String) throws -> RGBImage {
        try decodeJPEG(imagePath(name))
    }

    static func decodeJPEG(_ path: String) throws -> RGBImage {
        var width: Int32 = 0, height: Int32 = 0
        var message = [CChar](repeating: 0, count: 256)
        guard let pixels = posekit_libjpeg_decode(path, &width, &height, &message, message.count) else {
            throw ReferenceError.message("\(path): \(String(decoding: message.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self))")
        }
        defer { free(pixels) }
        let count = Int(width) * Int(height) * 3
        return RGBImage(width: Int(width), height: Int(height), pixels: Array(UnsafeBufferPointer(start: pixels, count: count)))
    }

    static func tensor(_ name: String, _ file: String) throws -> Tensor {
        try NumPyArray.read(contentsOf: pipelines.appendingPathComponent(name).appendingPathComponent(file))
    }

    static func json<T: Decodable>(_ type: T.Type, _ url: URL) throws -> T {
        try JSONDecoder().decode(T.self, from: Data(contentsOf: url))
    }

    static func pose(_ name: String) throws -> PosePipelineJSON {
        try json(PosePipelineJSON.self, pipelines.appendingPathComponent(name).appendingPathComponent("mp_pose_pipeline.json"))
    }

    static func hands(_ name: String, model: String) throws -> HandPipelineJSON {
        try json(HandPipelineJSON.self, pipelines.appendingPathComponent(name).appendingPathComponent("mp_hand_pipeline_\(model).json"))
    }
}

enum ReferenceError: Error { case message(String) }

struct RectJSON: Decodable {
    var x_center: Float, y_center: Float, width: Float, height: Float, rotation: Float?
    var rect: NormalizedRect { NormalizedRect(xCenter: x_center, yCenter: y_center, width: width, height: height, rotation: rotation ?? 0) }
}

struct DetectionJSON: Decodable {
    struct Box: Decodable { var xmin: Float, ymin: Float, width: Float, height: Float }
    struct Point: Decodable { var x: Float, y: Float }
    struct Location: Decodable { var relative_bounding_box: Box; var relative_keypoints: [Point] }
    var score: [Float]
    var location_data: Location
}

struct LandmarkJSON: Decodable {
    var x: Float, y: Float, z: Float, visibility: Float?, presence: Float?
}

struct LandmarkListJSON: Decodable { var landmark: [LandmarkJSON] }

struct PosePipelineJSON: Decodable {
    var width: Int, height: Int
    var pose_landmarks: LandmarkListJSON?
    var pose_world_landmarks: LandmarkListJSON?
    var pose_detection: DetectionJSON?
    var pose_rect_from_detection: RectJSON?
    var pose_rect_from_landmarks: RectJSON?
}

struct HandPipelineJSON: Decodable {
    struct Classification: Decodable { var index: Int; var score: Float; var label: String }
    struct ClassificationList: Decodable { var classification: [Classification] }
    var width: Int, height: Int
    var multi_hand_landmarks: [LandmarkListJSON]?
    var multi_hand_world_landmarks: [LandmarkListJSON]?
    var multi_handedness: [ClassificationList]?
    var palm_detections: [DetectionJSON]?
    var hand_rects_from_palm_detections: [RectJSON]?
    var hand_rects_from_landmarks: [RectJSON]?
}

/// The largest absolute difference of two rectangles' fields.
func difference(_ a: NormalizedRect, _ b: NormalizedRect) -> Float {
    [abs(a.xCenter - b.xCenter), abs(a.yCenter - b.yCenter), abs(a.width - b.width), abs(a.height - b.height),
     abs(a.rotation - b.rotation)].max()!
}

/// The largest absolute difference of a detection from MediaPipe's (box and keypoints).
func difference(_ a: Detection, _ b: DetectionJSON) -> Float {
    let box = b.location_data.relative_bounding_box
    var d = [abs(a.box.xmin - box.xmin), abs(a.box.ymin - box.ymin), abs(a.box.width - box.width), abs(a.box.height - box.height)].max()!
    for (k, p) in zip(a.keypoints, b.location_data.relative_keypoints) { d = max(d, abs(k.x - p.x), abs(k.y - p.y)) }
    return d
}
