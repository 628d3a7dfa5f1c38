import PoseCore
import PoseNet
import Tensor

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
    /// Median time to wrap the four heads in a ``PoseNetOutput`` (shape and finiteness checks),
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
        let start = MonotonicClock.now()
        poses = try decodeMultiplePoses(output, parameters: parameters)
        times.append((MonotonicClock.now() - start) * 1e3)
    }
    var validation: [Double] = []
    validation.reserveCapacity(times.count)
    for _ in times.indices {
        let start = MonotonicClock.now()
        _ = try PoseNetOutput(heatmapScores: output.heatmapScores, offsets: output.offsets,
                              displacementsFwd: output.displacementsFwd, displacementsBwd: output.displacementsBwd,
                              outputStride: output.outputStride)
        validation.append((MonotonicClock.now() - start) * 1e3)
    }
    return DecodeBenchmarkResult(gridSize: gridSize, posesDecoded: poses.count, iterations: times.count,
                                 medianMilliseconds: Median.of(times), minimumMilliseconds: times.min()!,
                                 medianValidationMilliseconds: Median.of(validation))
}
