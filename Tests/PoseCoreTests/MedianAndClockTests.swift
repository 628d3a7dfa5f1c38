#if canImport(Glibc)
import Glibc
#endif
import Testing
import PoseCore

/// The one median and the one clock.
@Suite struct MedianAndClockTests {
    @Test func theMedianIsTheMiddleSampleTheUpperOneOfAnEvenCount() {
        #expect(Median.of([3, 1, 2]) == 2)
        #expect(Median.of([4, 1, 3, 2]) == 3)
        #expect(Median.of([5]) == 5)
        #expect(Median.of([2, 2, 9, 2]) == 2)
        #expect(Median.of([-1, 10, 0.5, 7, 7]) == 7)
        #expect(Median.of([]).isNaN)
    }

    @Test func theClockNeverGoesBackAndMeasuresSeconds() {
        var last = MonotonicClock.now()
        for _ in 0..<10_000 {
            let now = MonotonicClock.now()
            #expect(now >= last)
            last = now
        }
        // A 20 ms sleep reads as at least 20 ms (a busy machine can only make it longer).
        let start = MonotonicClock.now()
        usleep(20_000)
        let elapsed = MonotonicClock.now() - start
        #expect(elapsed >= 0.0199 && elapsed < 5, "\(elapsed) s")
    }
}
