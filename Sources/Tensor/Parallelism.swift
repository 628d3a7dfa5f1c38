import COpenBLAS
import Dispatch
import Foundation

/// How the kernels use the machine's cores.
///
/// Every kernel takes a `threads` argument (default ``Parallelism/defaultThreads``) and splits its
/// work into that many contiguous bands run with `DispatchQueue.concurrentPerform`. The GEMM-backed
/// convolutions call `cblas_sgemm` **single-threaded inside each band** and apply their epilogue to
/// the band while it is still in cache, so OpenBLAS's own thread pool is kept at one thread while
/// our kernels run (see ``BLASThreads``).
public enum Parallelism {
    /// The number of cores this process may use (2 on the reference machine).
    public static let defaultThreads = max(1, ProcessInfo.processInfo.activeProcessorCount)

    /// Runs `body(band)` for `band` in `0..<bands`, concurrently when `bands > 1`.
    ///
    /// The bands run on the calling thread and PoseKit's helper threads, whichever claims each
    /// first (see `SpinningPool`: a fork costs microseconds, and a helper kept off its core by
    /// another process does not hold the others up); a call while the pool is busy (nested, or
    /// from another thread) goes through `DispatchQueue.concurrentPerform`. A band's index is not
    /// tied to a thread, but each band runs on one thread, so per-band scratch needs no locks.
    public static func forEachBand(_ bands: Int, _ body: (Int) -> Void) {
        if bands <= 1 {
            body(0)
        } else if bands <= SpinningPool.maxBands && SpinningPool.shared.run(bands, body) {
            return
        } else {
            // The bands touch disjoint memory by construction; the kernels' raw pointers are not
            // `Sendable`, so the closure is handed over unchecked.
            nonisolated(unsafe) let body = body
            DispatchQueue.concurrentPerform(iterations: bands) { body($0) }
        }
    }

    /// Lets PoseKit's helper threads sleep now rather than spin, waiting for the next
    /// ``forEachBand(_:_:)`` (which wakes them). Call it after a burst of parallel work, such as a
    /// forward pass, when other threads of the process are about to need the cores: on 2 cores a
    /// spinning helper otherwise takes the core the next frame's reader could run on.
    public static func parkHelpers() {
        SpinningPool.shared.parkHelpers()
    }

    /// The half-open range of items band `band` of `bands` owns when `count` items are split
    /// into near-equal contiguous bands (the first `count % bands` bands get one extra item).
    @inlinable
    public static func bandRange(_ band: Int, of bands: Int, count: Int) -> Range<Int> {
        let base = count / bands, extra = count % bands
        let lower = band * base + min(band, extra)
        return lower..<(lower + base + (band < extra ? 1 : 0))
    }
}

/// OpenBLAS's own thread pool size (global to the process).
///
/// The Tensor kernels require OpenBLAS to run single-threaded (they parallelise over bands
/// themselves) and call ``ensureSingleThreaded()`` on entry. Code that calls `cblas_sgemm`
/// directly on one big matrix (e.g. a benchmark of the library peak) may raise it with ``set(_:)``.
public enum BLASThreads {
    /// Sets OpenBLAS's thread count for subsequent BLAS calls.
    public static func set(_ threads: Int) {
        openblas_set_num_threads(Int32(max(1, threads)))
    }

    /// OpenBLAS's current thread count.
    public static var current: Int { Int(openblas_get_num_threads()) }

    /// Drops OpenBLAS to one thread if it is not already there (cheap when it is).
    public static func ensureSingleThreaded() {
        if openblas_get_num_threads() != 1 { openblas_set_num_threads(1) }
    }

    /// The name of the CPU kernel set OpenBLAS selected (e.g. "Haswell", "SkylakeX", "Zen").
    public static var coreName: String {
        guard let name = openblas_get_corename() else { return "unknown" }
        return String(cString: name)
    }
}
