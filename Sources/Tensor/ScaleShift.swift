extension Elementwise {
    /// `output = activation(x · scale[c] + shift[c])`, `c` the index along `axis`: a batch
    /// normalization folded to one multiply-add per element (`scale = γ / √(σ² + ε)`,
    /// `shift = β − μ · scale`), on any axis of any rank. `output` may be `input` (in place).
    ///
    /// The product and the sum are rounded separately (no fused multiply-add), as
    /// `x · scale + shift` written out, so the result does not depend on the instruction set.
    ///
    /// - Throws: ``TensorError/shapeMismatch(_:)`` when `axis` is outside the input, `scale` or
    ///   `shift` does not hold one value per index along it, or `output` has another shape.
    public static func scaleShift(
        _ input: Tensor, scale: Tensor, shift: Tensor, axis: Int, activation: Activation = .none,
        into output: Tensor, threads: Int = Parallelism.defaultThreads
    ) throws {
        guard (0..<input.rank).contains(axis), scale.count == input.shape[axis], shift.count == input.shape[axis] else {
            throw TensorError.shapeMismatch("scale \(scale.shape) and shift \(shift.shape) along axis \(axis) of \(input.shape)")
        }
        try output.requireShape(input.shape, "scale-shift output")
        let channels = input.shape[axis], inner = input.shape[(axis + 1)...].reduce(1, *)
        let (low, high) = activation.bounds
        withExtendedLifetime((input, scale, shift, output)) {
            let x = input.basePointer, s = scale.basePointer, t = shift.basePointer, out = output.mutableBasePointer
            if inner == 1 {
                // Channels last: each pixel's run of `channels` values against the two vectors.
                let pixels = input.count / max(channels, 1)
                forEachBand(count: pixels, threads: threads, grain: max(1, minimumBandElements / max(channels, 1))) { range in
                    for pixel in range {
                        let row = x + pixel * channels, target = out + pixel * channels
                        var c = 0
                        let v = Lanes.scalarCount
                        while c + v <= channels {
                            let product = UnsafeRawPointer(row + c).loadUnaligned(as: Lanes.self) * UnsafeRawPointer(s + c).loadUnaligned(as: Lanes.self)
                            let value = product + UnsafeRawPointer(t + c).loadUnaligned(as: Lanes.self)
                            UnsafeMutableRawPointer(target + c).storeBytes(of: value.clampedLanes(low, high), as: Lanes.self)
                            c += v
                        }
                        while c < channels {
                            let product = row[c] * s[c]
                            let value = product + t[c]
                            target[c] = value < low ? low : (value > high ? high : value)
                            c += 1
                        }
                    }
                }
            } else {
                // One (scale, shift) per run of `inner` contiguous values.
                let runs = input.count / inner
                forEachBand(count: runs, threads: threads, grain: max(1, minimumBandElements / inner)) { range in
                    for run in range {
                        let c = run % channels, a = s[c], b = t[c]
                        let row = x + run * inner, target = out + run * inner
                        for i in 0..<inner {
                            let product = row[i] * a
                            let value = product + b
                            target[i] = value < low ? low : (value > high ? high : value)
                        }
                    }
                }
            }
        }
    }

    /// `output = activation(input)` (ReLU: `max(x, 0)`): an activation standing alone, not fused
    /// into the operation before it. `output` may be `input`.
    ///
    /// - Throws: ``TensorError/shapeMismatch(_:)`` when the shapes differ.
    public static func activation(_ activation: Activation, _ input: Tensor, into output: Tensor,
                                  threads: Int = Parallelism.defaultThreads) throws {
        try output.requireShape(input.shape, "activation output")
        let (low, high) = activation.bounds
        withExtendedLifetime((input, output)) {
            let x = input.basePointer, out = output.mutableBasePointer
            forEachBand(count: input.count, threads: threads) { range in
                var i = range.lowerBound
                let v = Lanes.scalarCount
                while i + v <= range.upperBound {
                    let value = UnsafeRawPointer(x + i).loadUnaligned(as: Lanes.self)
                    UnsafeMutableRawPointer(out + i).storeBytes(of: value.clampedLanes(low, high), as: Lanes.self)
                    i += v
                }
                while i < range.upperBound {
                    out[i] = x[i] < low ? low : (x[i] > high ? high : x[i])
                    i += 1
                }
            }
        }
    }
}
