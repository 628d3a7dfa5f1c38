import Foundation
import PoseCore

/// libFuzzer entry point: decode `data` as `posekit pose` JSON Lines (the size pre-check, then
/// JSONSerialization and the field checks), line by line. A refusal must be a `PoseDataError`;
/// a frame read must hold at most `maximumPosesPerFrame` poses of 17 finite keypoints, and
/// written back by the encoder it must decode to the same number of poses.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzPoseLines(_ data: UnsafePointer<UInt8>, _ size: Int) -> Int32 {
    let text = String(decoding: UnsafeBufferPointer(start: data, count: size), as: UTF8.self)
    var decoder = PoseJSONLinesDecoder()
    for line in text.split(separator: "\n", omittingEmptySubsequences: false) {
        do {
            guard let frame = try decoder.decode(line: line) else { continue }
            precondition(frame.poses.count <= PoseJSONLinesDecoder.maximumPosesPerFrame, "\(frame.poses.count) poses")
            precondition(frame.time.isFinite && frame.time >= 0, "time \(frame.time)")
            for pose in frame.poses {
                precondition(pose.keypoints.count == 17, "\(pose.keypoints.count) keypoints")
                precondition(pose.keypoints.allSatisfy { $0.position.x.isFinite && $0.position.y.isFinite }, "non-finite keypoint")
            }
            var json = JSONText()
            PoseJSONLinesEncoder.append(source: frame.source ?? "", frame: frame.frame, width: frame.width, height: frame.height,
                                        time: frame.time, poses: frame.poses, to: &json)
            var again = PoseJSONLinesDecoder()
            let reread = try again.decode(line: json.text)
            precondition(reread?.poses.count == frame.poses.count, "the encoder's line decodes to other poses")
        } catch is PoseDataError {
        } catch {
            fatalError("unexpected error type: \(error)")
        }
    }
    return 0
}
