import Testing
@testable import Tensor
import TestSupport

/// ``Tensor/channels(_:)`` and ``Tensor/init(concatenatingChannels:)`` against index arithmetic
/// written out value by value.
@Suite struct ChannelCopyTests {
    @Test func channelsCopyTheRangeOfEveryPixel() throws {
        var rng = SeededGenerator(seed: 11)
        let (h, w, c) = (5, 7, 115)
        let packed = randomTensor([h, w, c], &rng), values = packed.scalars
        for range in [0..<17, 17..<51, 51..<83, 83..<115, 0..<115, 114..<115] {
            let copy = try packed.channels(range)
            #expect(copy.shape == [h, w, range.count])
            var want: [Float] = []
            for pixel in 0..<(h * w) { for channel in range { want.append(values[pixel * c + channel]) } }
            #expect(copy.scalars == want, "channels \(range)")
        }
        // A copy: writing it leaves the source alone.
        let copy = try packed.channels(0..<3)
        copy.withUnsafeMutableBufferPointer { $0[0] = 1234 }
        #expect(packed.scalars == values)
        for bad in [0..<0, -1..<3, 100..<116] { #expect(throws: TensorError.self) { try packed.channels(bad) } }
        #expect(throws: TensorError.self) { try packed.reshaped([h * w, c]).channels(0..<1) }
    }

    @Test func concatenatingChannelsInvertsChannels() throws {
        var rng = SeededGenerator(seed: 12)
        let parts = [17, 34, 32, 32].map { randomTensor([3, 4, $0], &rng) }
        let packed = try Tensor(concatenatingChannels: parts)
        #expect(packed.shape == [3, 4, 115])
        let values = packed.scalars
        var offset = 0
        for part in parts {
            let channels = part.shape[2], own = part.scalars
            for pixel in 0..<12 {
                for k in 0..<channels { #expect(values[pixel * 115 + offset + k] == own[pixel * channels + k]) }
            }
            #expect(try packed.channels(offset..<(offset + channels)).scalars == own)
            offset += channels
        }
        #expect(throws: TensorError.self) { try Tensor(concatenatingChannels: []) }
        #expect(throws: TensorError.self) { try Tensor(concatenatingChannels: [parts[0], try Tensor(zeros: [4, 3, 2])]) }
        #expect(throws: TensorError.self) { try Tensor(concatenatingChannels: [try Tensor(zeros: [12, 2])]) }
    }
}
