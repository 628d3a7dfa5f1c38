import PoseCore
import PoseNet
import Tensor

/// Timing of the multi-person decoder on a synthetic frame.
public struct DecodeBenchmarkResult: Sendable {
    /// Grid rows × columns of the synthetic heads.
    public var gridSize: Int
    /// People in the synthetic frame.
    public var people: Int
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
    try benchmarkDecode(gridSize: gridSize, crowds: [people], maxPoses: nil, iterations: iterations)[0]
}

/// Decode time as a frame holds more people: one synthetic `gridSize × gridSize` frame per
/// count in `crowds` (``SyntheticHeads/crowd(gridSize:people:)``), decoded with default
/// parameters and at most `maxPoses` poses (nil: as many as the frame's people), timed
/// interleaved (each round decodes every frame once), `iterations` rounds.
public func benchmarkDecode(gridSize: Int, crowds: [Int], maxPoses: Int?, iterations: Int) throws -> [DecodeBenchmarkResult] {
    let frames = try crowds.map { try SyntheticHeads.crowd(gridSize: gridSize, people: $0).output }
    let parameters = crowds.map { MultiPoseParameters(maxPoses: maxPoses ?? $0) }
    var decoded = [Int](repeating: 0, count: crowds.count)
    let bodies: [() throws -> Void] = crowds.indices.map { i in
        { decoded[i] = try decodeMultiplePoses(frames[i], parameters: parameters[i]).count }
    }
    let timings = try Benchmark.measureInterleaved(warmup: 1, runs: max(iterations, 1), bodies)
    let validation = Benchmark.measure(warmup: 1, runs: max(iterations, 1)) {
        let output = frames[0]
        _ = try? PoseNetOutput(heads: output.heads, outputStride: output.outputStride)
    }
    return crowds.indices.map { i in
        DecodeBenchmarkResult(gridSize: gridSize, people: crowds[i], posesDecoded: decoded[i], iterations: timings[i].samples.count,
                              medianMilliseconds: timings[i].median * 1e3, minimumMilliseconds: timings[i].minimum * 1e3,
                              medianValidationMilliseconds: validation.median * 1e3)
    }
}
