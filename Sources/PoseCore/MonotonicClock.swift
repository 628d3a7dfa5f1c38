#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// PoseKit's one clock for elapsed time: seconds on the system's monotonic clock, which no
/// change of the wall-clock time moves. Progress rates, the output sinks' flush timer, import
/// and training durations and the benchmarks' timings all read it.
///
///     let start = MonotonicClock.now()
///     work()
///     print("took \(MonotonicClock.now() - start) s")
///
/// (The kernels' thread pool spins against `DispatchTime` in nanoseconds: Tensor sits below PoseCore.)
public enum MonotonicClock {
    /// Seconds since an arbitrary fixed point (the machine's boot); only differences mean anything.
    public static func now() -> Double {
        var time = timespec()
        clock_gettime(CLOCK_MONOTONIC, &time)
        return Double(time.tv_sec) + Double(time.tv_nsec) * 1e-9
    }
}
