/// Skipping zero channels in the packed GEMM: a row tile's input channels that are zero in all of
/// its pixels add nothing to its outputs, so the microkernel leaves them out.
///
/// Why: ReLU6 zeroes 40–45% of the activations PoseNet's 17×17 blocks read, and on real frames
/// 15–30% of their (six-pixel tile, input channel) pairs are zero in all six pixels. Those
/// layers are 60% of a forward pass at 257. Each core scans the first few tiles of its share of
/// a call and goes on scanning only if that sample says it pays (``skippingPays(zeroPairs:pairs:panels:)``).
/// A tile's nonzero channels are listed (``nonzeroChannels(a:lda:rows:channels:into:)``), then
/// ``packedCompactedRowTile(a:lda:rows:channels:count:packed:columns:epilogue:at:c:)`` multiplies
/// only those channels, reading them in place, by their weight rows.
///
/// The result equals the full product whenever the weights are finite: a skipped term is
/// `0 · w = ±0`, and adding a zero leaves a sum unchanged (only a zero sum's sign can differ).
extension Convolution {
    /// Whether scanning a layer's tiles for zero channels pays, judged on a sample of its tiles:
    /// `zeroPairs` of their `pairs` (tile, input channel) pairs are zero in all the tile's
    /// pixels, and the layer has `panels` output panels.
    ///
    /// A zero pair saves one channel's multiply-adds in every panel, while the scan costs about
    /// the same per pair whatever the layer, so what counts is the zero fraction z times the
    /// panels. (When this was measured, the kept values were also gathered into a copy; they are
    /// now read in place, so the threshold errs on the side of not scanning.) Measured with skipping forced on every layer of PoseNet at
    /// 257 on real frames (Zen 3, one thread, `posekit bench model --layers --image`): z·panels
    /// 1.3 saved 12% (the 24→48 block at 129x129, z = 0.44) and 5% (192→192 at 33x33, z = 0.11),
    /// 1.9 saved 7%, 3.5–6.5 (the 384→384 blocks at 17x17) 11–22%; 0.4–0.96 lost 2.5–4.5% (the
    /// 48→96 and 96→96 blocks at 65x65, 96→192 at 33x33, the heads). Hence z·panels ≥ 1.15.
    static func skippingPays(zeroPairs: Int, pairs: Int, panels: Int) -> Bool {
        zeroPairs * panels * 20 >= pairs * 23
    }

    /// Tiles a core scans to decide whether scanning the rest of its share pays.
    static let zeroChannelSampleTiles = 8

    /// Bytes of tile inputs whose channel lists a core makes before it sweeps the column chunks
    /// over those tiles: small enough that the tiles stay in L2 beside a chunk of weights.
    static let zeroChannelGroupBytes = 64 * 1024

    /// Writes to `list` the channels that are nonzero (`+0` and `-0` are zero) in at least one
    /// of the `rows` rows starting at `a`, in increasing order; returns how many. Writes up to
    /// 7 entries past the last one.
    @inline(__always)
    static func nonzeroChannels(
        a: UnsafePointer<Float>, lda: Int, rows: Int, channels: Int, into list: UnsafeMutablePointer<Int32>
    ) -> Int {
        typealias Bits = SIMD8<UInt32>
        @inline(__always) func bits(_ p: UnsafePointer<Float>) -> Bits { UnsafeRawPointer(p).loadUnaligned(as: Bits.self) }
        let magnitude = Bits(repeating: 0x7fff_ffff)
        let table = compressionTable
        var count = 0, k = 0
        while k + Bits.scalarCount <= channels {
            var any = bits(a + k)
            var r = 1
            while r < rows { any |= bits(a + r * lda + k); r += 1 }
            // Lane i nonzero → byte i is 1; the multiply gathers the eight bytes' low bits into
            // the top byte (a lane mask, without a movemask instruction in Swift's SIMD).
            let bytes = SIMD8<UInt8>(truncatingIfNeeded: Bits.zero.replacing(with: 1, where: (any & magnitude) .!= .zero))
            let mask = Int((unsafeBitCast(bytes, to: UInt64.self) &* 0x0102_0408_1020_4080) >> 56)
            // The nonzero lanes' channels moved to the front: all eight stored, the count
            // advanced past the kept ones, so no branch depends on the data.
            UnsafeMutableRawPointer(list + count).storeBytes(of: table[mask] &+ Int32(truncatingIfNeeded: k),
                                                             as: SIMD8<Int32>.self)
            count += mask.nonzeroBitCount
            k += Bits.scalarCount
        }
        while k < channels {
            var nonzero = false
            for r in 0..<rows where a[r * lda + k] != 0 { nonzero = true }
            if nonzero { list[count] = Int32(truncatingIfNeeded: k); count += 1 }
            k += 1
        }
        return count
    }

    /// For each 8-bit lane mask, the indices of its set lanes in increasing order, then zeros.
    nonisolated(unsafe) static let compressionTable: UnsafePointer<SIMD8<Int32>> = {
        let table = UnsafeMutablePointer<SIMD8<Int32>>.allocate(capacity: 256)
        for mask in 0..<256 {
            var lanes = SIMD8<Int32>.zero, count = 0
            for lane in 0..<8 where mask & (1 << lane) != 0 { lanes[count] = Int32(lane); count += 1 }
            table[mask] = lanes
        }
        return UnsafePointer(table)
    }()

    /// ``packedRowTile(a:lda:segments:segmentLength:segmentStride:rows:packed:columns:epilogue:at:c:)``
    /// over only the `count` input channels listed at `channels` (by ``nonzeroChannels(a:lda:rows:channels:into:)``):
    /// row `r`'s value of the `i`-th is at `a + r·lda + channels[i]`, read in place. Computes the
    /// output channels `columns` (a range starting on a panel boundary); for each listed channel
    /// the microkernel finds the weight row through the list.
    @inline(__always)
    static func packedCompactedRowTile(
        a: UnsafePointer<Float>, lda: Int, rows: Int, channels: UnsafePointer<Int32>, count: Int,
        packed: PackedPointwiseWeights, columns: Range<Int>, epilogue: KernelEpilogue, at offset: Int,
        c: UnsafeMutablePointer<Float>
    ) {
        var tileEpilogue = epilogue.tile(offset)
        packed.microkernel.compactedRowTile(
            a, lda, rows, channels, count, packed.panels.buffer.baseAddress!, packed.bias.buffer.baseAddress!,
            packed.inputChannels, packed.outputChannels, columns.lowerBound, columns.upperBound, &tileEpilogue, c + offset)
    }
}
