import FrameIO
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Throughput of the frame paths on synthetic 640×480 frames, for `posekit bench`.
///
///     for r in FrameIOBenchmark.run() { print(r) }
///
/// Each case runs single-threaded (one core) for about `seconds` of CPU time.
public enum FrameIOBenchmark {
    public struct Result: Sendable, CustomStringConvertible {
        public var name: String
        public var framesPerSecond: Double
        public var description: String {
            "\(name): \(Int(framesPerSecond.rounded())) frames/s (\(formatted(1000 / framesPerSecond)) ms/frame)"
        }
        private func formatted(_ v: Double) -> String { String(Int((v * 1000).rounded())) .paddedMillis }
    }

    /// Runs every case: full-frame YUV420→RGB, fused YUV420→network input at 257 and 513
    /// (letterbox), and RGB→network input at 257.
    public static func run(width: Int = 640, height: Int = 480, seconds: Double = 1) -> [Result] {
        let frame = syntheticFrame(width: width, height: height)
        var results: [Result] = []
        let converter = YUVToRGB(format: frame.format)
        var rgb = RGBImage()
        results.append(Result(name: "yuv420 \(width)x\(height) → rgb", framesPerSecond: measure(seconds) {
            converter.convert(frame, into: &rgb)
        }))
        for size in [257, 513] {
            let writer = try! NetworkInputWriter(sourceWidth: width, sourceHeight: height, size: size,
                                                 geometry: .letterbox, chroma: frame.format.chroma)
            var input = [Float](repeating: 0, count: writer.outputCount)
            results.append(Result(name: "yuv420 \(width)x\(height) → network input \(size) (fused)", framesPerSecond: measure(seconds) {
                input.withUnsafeMutableBufferPointer { writer.write(frame, into: $0) }
            }))
        }
        let writer = try! NetworkInputWriter(sourceWidth: width, sourceHeight: height, size: 257)
        var input = [Float](repeating: 0, count: writer.outputCount)
        results.append(Result(name: "rgb \(width)x\(height) → network input 257", framesPerSecond: measure(seconds) {
            input.withUnsafeMutableBufferPointer { writer.write(rgb, into: $0) }
        }))
        return results
    }

    /// Frames per second of `body` on one core, timed over about `seconds` of this thread's CPU
    /// time after one warm-up call. CPU time rather than wall time keeps the figure honest on a
    /// machine shared with other work (time spent descheduled is not counted).
    static func measure(_ seconds: Double, _ body: () -> Void) -> Double {
        body()
        var frames = 0
        let start = threadCPUTime()
        var elapsed = 0.0
        repeat {
            for _ in 0..<10 { body() }
            frames += 10
            elapsed = threadCPUTime() - start
        } while elapsed < seconds
        return Double(frames) / elapsed
    }

    static func threadCPUTime() -> Double {
        var t = timespec()
        clock_gettime(CLOCK_THREAD_CPUTIME_ID, &t)
        return Double(t.tv_sec) + Double(t.tv_nsec) * 1e-9
    }

    /// A deterministic 4:2:0 frame with gradients and texture (not constant, so no shortcut applies).
    static func syntheticFrame(width: Int, height: Int) -> YUVFrame {
        var frame = YUVFrame(format: YUVFormat(width: width, height: height, chroma: .c420mpeg2))
        var state: UInt32 = 12345
        for i in 0..<frame.data.count {
            state = state &* 1664525 &+ 1013904223
            frame.data[i] = UInt8(truncatingIfNeeded: (i % 251) + Int(state >> 29))
        }
        return frame
    }
}

private extension String {
    /// "1234" (microseconds) → "1.234".
    var paddedMillis: String {
        let digits = count < 4 ? String(repeating: "0", count: 4 - count) + self : self
        return digits.dropLast(3) + "." + digits.suffix(3)
    }
}
