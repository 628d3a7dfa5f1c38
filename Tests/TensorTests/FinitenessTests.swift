import Testing
@testable import Tensor
import TestSupport

/// ``Tensor/firstNonFiniteIndex()`` against `firstIndex { !$0.isFinite }`.
@Suite struct FinitenessTests {
    @Test func findsTheFirstNaNOrInfinityAnywhere() throws {
        let specials: [Float] = [.nan, -.nan, .signalingNaN, Float(bitPattern: 0x7fff_ffff), Float(bitPattern: 0xff80_0001),
                                 .infinity, -.infinity]
        for count in [1, 15, 16, 17, 33_120] {
            let finite = try Tensor(shape: [count], values: (0..<count).map { Float($0 % 7) - 3 })
            #expect(finite.firstNonFiniteIndex() == nil, "\(count) finite values")
            for special in specials {
                for index in Set([0, count / 2, count - 1]) {
                    var values = finite.scalars
                    values[index] = special
                    if index + 1 < count { values[count - 1] = special }   // a later one does not matter
                    #expect(try Tensor(shape: [count], values: values).firstNonFiniteIndex() == index, "\(special.bitPattern) at \(index) of \(count)")
                }
            }
        }
        // The largest and smallest finite magnitudes, subnormals and signed zeros are finite.
        let edges: [Float] = [.greatestFiniteMagnitude, -.greatestFiniteMagnitude, .leastNonzeroMagnitude, -.leastNormalMagnitude, 0, -0]
        #expect(try Tensor(shape: [edges.count], values: edges).firstNonFiniteIndex() == nil)
    }

    @Test func randomBitPatternsAgreeWithTheNaiveScan() throws {
        var rng = SeededGenerator(seed: 21)
        for _ in 0..<200 {
            let count = Int(rng.next() % 3000) + 1
            // Exponent all ones with probability 1/256 per value: some tensors have none, some several.
            let values = (0..<count).map { _ in Float(bitPattern: UInt32(truncatingIfNeeded: rng.next())) }
            let tensor = try Tensor(shape: [count], values: values)
            #expect(tensor.firstNonFiniteIndex() == values.firstIndex { !$0.isFinite })
        }
    }
}
