/// Element-by-element kernels of graph networks: residual addition and PReLU.
///
/// Both allow `output` to be one of the inputs (in place), both split the elements over
/// `threads` cores in contiguous bands, and both vectorise (16 lanes with AVX-512, else 8).
public enum Elementwise {}

extension Elementwise {
    #if POSEKIT_AVX512
    typealias Lanes = SIMD16<Float>
    #else
    typealias Lanes = SIMD8<Float>
    #endif

    /// Elements per band below which a call stays on one core (a fork costs more than the work).
    static let minimumBandElements = 16 * 1024

    /// `output = activation(a + b)`, same shapes (no broadcasting). `output` may be `a` or `b`.
    ///
    /// - Throws: ``TensorError/shapeMismatch(_:)`` when the shapes differ.
    public static func add(
        _ a: Tensor, _ b: Tensor, activation: Activation = .none, into output: Tensor,
        threads: Int = Parallelism.defaultThreads
    ) throws {
        guard a.shape == b.shape else { throw TensorError.shapeMismatch("add of \(a.shape) and \(b.shape)") }
        try output.requireShape(a.shape, "add output")
        let (low, high) = activation.bounds
        withExtendedLifetime((a, b, output)) {
            let x = a.basePointer, y = b.basePointer, out = output.mutableBasePointer
            forEachBand(count: a.count, threads: threads) { range in
                var i = range.lowerBound
                let v = Lanes.scalarCount
                while i + v <= range.upperBound {
                    let sum = UnsafeRawPointer(x + i).loadUnaligned(as: Lanes.self) + UnsafeRawPointer(y + i).loadUnaligned(as: Lanes.self)
                    UnsafeMutableRawPointer(out + i).storeBytes(of: sum.clampedLanes(low, high), as: Lanes.self)
                    i += v
                }
                while i < range.upperBound {
                    let s = x[i] + y[i]
                    out[i] = s < low ? low : (s > high ? high : s)
                    i += 1
                }
            }
        }
    }

    /// PReLU: `output = x > 0 ? x : slope[c] · x`, with one slope per channel of the last axis.
    /// `output` may be `input`.
    ///
    /// - Throws: ``TensorError/shapeMismatch(_:)`` when `slope` is not `[C]` for the input's last axis `C`.
    public static func prelu(_ input: Tensor, slope: Tensor, into output: Tensor, threads: Int = Parallelism.defaultThreads) throws {
        guard let channels = input.shape.last, slope.count == channels else {
            throw TensorError.shapeMismatch("PReLU slope \(slope.shape) for input \(input.shape) (one slope per channel of the last axis)")
        }
        try output.requireShape(input.shape, "PReLU output")
        let pixels = input.count / channels
        withExtendedLifetime((input, slope, output)) {
            let x = input.basePointer, alpha = slope.basePointer, out = output.mutableBasePointer
            forEachBand(count: pixels, threads: threads, grain: max(1, minimumBandElements / channels)) { range in
                for pixel in range {
                    let row = x + pixel * channels, target = out + pixel * channels
                    var ch = 0
                    let v = Lanes.scalarCount
                    while ch + v <= channels {
                        let value = UnsafeRawPointer(row + ch).loadUnaligned(as: Lanes.self)
                        // max(x, 0) + slope · min(x, 0): exact on both sides, and two clamps
                        // vectorise where a masked select compiles to a scalar loop.
                        let result = value.clampedLanes(0, .infinity)
                            + UnsafeRawPointer(alpha + ch).loadUnaligned(as: Lanes.self) * value.clampedLanes(-.infinity, 0)
                        UnsafeMutableRawPointer(target + ch).storeBytes(of: result, as: Lanes.self)
                        ch += v
                    }
                    while ch < channels {
                        let value = row[ch]
                        target[ch] = value > 0 ? value : alpha[ch] * value
                        ch += 1
                    }
                }
            }
        }
    }

    /// Runs `body` on contiguous bands of `0..<count`, on up to `threads` cores, each band at
    /// least `grain` items (``minimumBandElements`` by default).
    static func forEachBand(count: Int, threads: Int, grain: Int = minimumBandElements, _ body: (Range<Int>) -> Void) {
        let workers = max(1, min(threads, count / max(1, grain)))
        Parallelism.forEachBand(workers) { worker in
            body(Parallelism.bandRange(worker, of: workers, count: count))
        }
    }
}
