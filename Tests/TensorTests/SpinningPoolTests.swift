import Dispatch
import Foundation
import Synchronization
import Testing
import TestSupport
@testable import Tensor

private final class Counter: Sendable { let value = Atomic<Int>(0) }

@Suite struct SpinningPoolTests {
    /// Every band runs exactly once per call, for many back-to-back forks (the pattern of a
    /// forward pass), with band counts below, at and above the number of cores.
    @Test func everyBandRunsOnce() {
        for bands in [1, 2, 3, 5] {
            let counts = (0..<bands).map { _ in Counter() }
            for _ in 0..<500 {
                Parallelism.forEachBand(bands) { band in counts[band].value.add(1, ordering: .relaxed) }
            }
            for band in 0..<bands { #expect(counts[band].value.load(ordering: .relaxed) == 500, "bands \(bands), band \(band)") }
        }
    }

    /// A fork inside a band, and forks from several threads at once, neither deadlock nor skip bands.
    @Test func nestedAndConcurrentCallsComplete() {
        let total = Atomic<Int>(0)
        Parallelism.forEachBand(2) { _ in
            Parallelism.forEachBand(2) { _ in total.add(1, ordering: .relaxed) }
        }
        #expect(total.load(ordering: .relaxed) == 4)
        let concurrent = Atomic<Int>(0)
        DispatchQueue.concurrentPerform(iterations: 4) { _ in
            for _ in 0..<200 { Parallelism.forEachBand(2) { _ in concurrent.add(1, ordering: .relaxed) } }
        }
        #expect(concurrent.load(ordering: .relaxed) == 4 * 200 * 2)
    }

    /// After the helper has gone to sleep (idle longer than the spin time: the test waits for
    /// that event, not for a time), a fork wakes it.
    @Test func wakesSleepingHelpers() throws {
        let pool = SpinningPool(helpers: 1)
        let total = Atomic<Int>(0)
        for _ in 0..<3 {
            #expect(waitUntil { pool.parkedHelpers == 1 }, "the idle helper never parked")
            #expect(pool.run(2) { _ in total.add(1, ordering: .relaxed) })
        }
        #expect(total.load(ordering: .relaxed) == 6)
    }
}

@Suite struct SpinningPoolClaimingTests {
    /// Bands are claimed, not tied to threads: with no helper at all the caller runs every band,
    /// and one helper with many bands still runs each band exactly once.
    @Test(arguments: [0, 1])
    func everyBandRunsOnceWhoeverClaimsIt(_ helpers: Int) {
        let pool = SpinningPool(helpers: helpers)
        for bands in [1, 2, 7, SpinningPool.maxBands] {
            let counts = (0..<bands).map { _ in Counter() }
            for _ in 0..<50 {
                #expect(pool.run(bands) { band in counts[band].value.add(1, ordering: .relaxed) })
            }
            for band in 0..<bands { #expect(counts[band].value.load(ordering: .relaxed) == 50, "helpers \(helpers), bands \(bands), band \(band)") }
        }
    }

    /// After `parkHelpers()` the helper sleeps at once, and the next job still wakes it: each of
    /// these jobs' two bands waits for the other to start, which only two threads at once can do.
    @Test func helpersToldToParkWakeForTheNextJob() {
        let pool = SpinningPool(helpers: 1)
        for _ in 0..<20 {
            let started = [Counter(), Counter()]
            let bothRan = Atomic<Int>(0)
            #expect(pool.run(2) { band in
                started[band].value.store(1, ordering: .sequentiallyConsistent)
                let deadline = DispatchTime.now().uptimeNanoseconds + UInt64(HangGuard.seconds * 1e9)
                while started[1 - band].value.load(ordering: .sequentiallyConsistent) == 0 {
                    if DispatchTime.now().uptimeNanoseconds > deadline { return }
                }
                bothRan.add(1, ordering: .relaxed)
            })
            #expect(bothRan.load(ordering: .relaxed) == 2, "the parked helper did not take the second band")
            pool.parkHelpers()
            #expect(waitUntil { pool.parkedHelpers == 1 }, "the helper told to park did not")
        }
    }
}

/// Polls `condition` (yielding the core) until it holds; false only after the hang guard.
func waitUntil(_ condition: () -> Bool) -> Bool {
    let deadline = DispatchTime.now().uptimeNanoseconds + UInt64(HangGuard.seconds * 1e9)
    while !condition() {
        if DispatchTime.now().uptimeNanoseconds > deadline { return false }
        sched_yield()
    }
    return true
}
