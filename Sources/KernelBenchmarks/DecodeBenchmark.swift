import PoseCore
import PoseNet
import Tensor
import Dispatch

/// Timing of the multi-person decoder on a synthetic frame.
public struct DecodeBenchmarkResult: Sendable {
    /// Grid rows × columns of the synthetic heads.
    public var gridSize: Int
    /// Poses the decoder returned on the synthetic frame.
    public var posesDecoded: Int
    /// Number of timed decodes.
    public var iterations: Int
    /// Median wall-clock time of one ``decodeMultiplePoses(_:parameters:)`` call, milliseconds.
    public var medianMilliseconds: Double
    /// Fastest decode, milliseconds.
    public var minimumMilliseconds: Double
    /// Median time to wrap the packed heads in a ``PoseNetOutput`` (shape and finiteness checks),
    /// milliseconds; paid once per frame before decoding.
    public var medianValidationMilliseconds: Double
}

/// Times ``decodeMultiplePoses(_:parameters:)`` on a synthetic `gridSize × gridSize` frame holding
/// `people` well separated people (the default 33 × 33 is a 513-pixel input at output stride 16),
/// with default parameters except `maxPoses = people`; `iterations` timed runs of each (at least 1).
///
/// The heads are built so that decoding finds every person: each keypoint peaks at one cell,
/// offsets and displacements point at the nearest person's keypoints. Only decoding is timed.
public func benchmarkDecode(gridSize: Int = 33, people: Int = 10, iterations: Int = 200) throws -> DecodeBenchmarkResult {
    let (output, _) = try SyntheticHeads.crowd(gridSize: gridSize, people: people)
    let parameters = MultiPoseParameters(maxPoses: people)
    var poses = try decodeMultiplePoses(output, parameters: parameters)   // warm-up
    var times: [Double] = []
    times.reserveCapacity(max(iterations, 1))
    for _ in 0..<max(iterations, 1) {
        let start = DispatchTime.now().uptimeNanoseconds
        poses = try decodeMultiplePoses(output, parameters: parameters)
        times.append(Double(DispatchTime.now().uptimeNanoseconds - start) / 1e6)
    }
    var validation: [Double] = []
    validation.reserveCapacity(times.count)
    for _ in times.indices {
        let start = DispatchTime.now().uptimeNanoseconds
        _ = try PoseNetOutput(heads: output.heads, outputStride: output.outputStride)
        validation.append(Double(DispatchTime.now().uptimeNanoseconds - start) / 1e6)
    }
    times.sort()
    validation.sort()
    return DecodeBenchmarkResult(gridSize: gridSize, posesDecoded: poses.count, iterations: times.count,
                                 medianMilliseconds: times[times.count / 2], minimumMilliseconds: times[0],
                                 medianValidationMilliseconds: validation[validation.count / 2])
}
