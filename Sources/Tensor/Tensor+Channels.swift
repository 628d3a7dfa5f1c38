extension Tensor {
    /// Channels `range` of this `[H, W, C]` tensor, copied into a new `[H, W, range.count]` one
    /// (pixel by pixel, channel fastest, as every rank-3 tensor here).
    ///
    ///     let heatmap = try heads.channels(0..<17)    // [H, W, 115] → [H, W, 17]
    ///
    /// - Throws: ``TensorError/shapeMismatch(_:)`` unless the tensor has rank 3 and `range` is a
    ///   non-empty range inside `0..<C`.
    public func channels(_ range: Range<Int>) throws -> Tensor {
        guard rank == 3, range.lowerBound >= 0, range.upperBound <= shape[2], !range.isEmpty else {
            throw TensorError.shapeMismatch("channels \(range) of a tensor of shape \(shape) (needs [H, W, C] and a range in 0..<C)")
        }
        let (pixels, channels, picked) = (shape[0] * shape[1], shape[2], range.count)
        let result = try Tensor(zeros: [shape[0], shape[1], picked])
        withUnsafeBufferPointer { source in
            result.withUnsafeMutableBufferPointer { target in
                let (from, to) = (source.baseAddress! + range.lowerBound, target.baseAddress!)
                for pixel in 0..<pixels { (to + pixel * picked).update(from: from + pixel * channels, count: picked) }
            }
        }
        return result
    }

    /// The channels of `parts` (each `[H, W, Cᵢ]`, one grid) side by side in every pixel, copied
    /// into one `[H, W, C₁ + C₂ + …]` tensor: the inverse of ``channels(_:)``.
    ///
    /// - Throws: ``TensorError/shapeMismatch(_:)`` when `parts` is empty, a part is not rank 3 or
    ///   has another grid than the first.
    public init(concatenatingChannels parts: [Tensor]) throws {
        guard let first = parts.first, parts.allSatisfy({ $0.rank == 3 && $0.shape[0...1] == first.shape[0...1] }) else {
            throw TensorError.shapeMismatch("concatenating channels needs [H, W, C] tensors of one grid, got \(parts.map(\.shape))")
        }
        let pixels = first.shape[0] * first.shape[1], total = parts.reduce(0) { $0 + $1.shape[2] }
        self = try Tensor(zeros: [first.shape[0], first.shape[1], total])
        withUnsafeMutableBufferPointer { target in
            var offset = 0
            for part in parts {
                let channels = part.shape[2]
                part.withUnsafeBufferPointer { source in
                    for pixel in 0..<pixels {
                        (target.baseAddress! + pixel * total + offset).update(from: source.baseAddress! + pixel * channels, count: channels)
                    }
                }
                offset += channels
            }
        }
    }
}
