// PoseKit: the one import for library clients.
//
//     import PoseKit
//
//     let detector = try PoseDetector(model: .mobilenet075)
//     for try await detected in detector.poses(inMediaAt: "clip.mp4") {
//         for pose in detected.poses { print(detected.index, pose.id ?? 0, pose[.nose].position) }
//     }
//
// It re-exports the runtime modules, so one import brings every one-call detector (Detectors:
// PoseNet's `PoseDetector`, `BlazePoseDetector`, `HandDetector`, `BodyAndHandsModel`), the PoseNet
// network (PoseNet), the stream every model runs on (Streaming), poses, body parts, tracking and
// the JSON Lines codec (PoseCore), images, frames, media input and output and overlays (FrameIO),
// action recognition and repetition counting (ActionNet), and weight bundles and tensors (Tensor).
// MediaPipe's calculators stay in their module (`import MediaPipe`): only BlazePose's result is
// re-exported.
@_exported import ActionNet
@_exported import Detectors
@_exported import FrameIO
@_exported import PoseCore
@_exported import PoseNet
@_exported import Streaming
@_exported import Tensor
@_exported import struct MediaPipe.BlazePoseResult
// BlazePose's settings a client sets on `BlazePoseDetector.Configuration`: which MediaPipe its landmarks
// follow, and how another body model's people become its regions (`--max-poses`).
@_exported import enum MediaPipe.BlazePoseVariant
@_exported import struct MediaPipe.BlazePoseRegionFromPose
@_exported import protocol MediaPipe.BlazePosePersonSource
@_exported import enum MediaPipe.BlazePosePersonScore
