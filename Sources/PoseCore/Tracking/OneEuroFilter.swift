import Foundation

/// The One-Euro filter (Casiez, Roussel, Vogel, CHI 2012): a first-order low-pass filter whose
/// cutoff frequency rises with the signal's speed, so a still signal is smoothed hard (little
/// jitter) and a moving one lightly (little lag).
///
///     cutoff = minimumCutoff + speedCoefficient · |smoothed derivative|
///     α(f, Δt) = 1 / (1 + 1 / (2π f Δt))
///
/// Works on any time base: each sample carries its own time stamp, so irregular frame times
/// (dropped frames, variable frame rates) are handled as the paper intends.
public struct OneEuroFilter: Sendable {
    /// Cutoff frequency (Hz) when the signal is still: lower is smoother.
    public var minimumCutoff: Double
    /// How much the cutoff rises per unit of speed (units of the signal per second): higher
    /// follows fast motion with less lag.
    public var speedCoefficient: Double
    /// Cutoff frequency (Hz) of the low-pass filter on the derivative.
    public var derivativeCutoff: Double

    private var previousValue: Double?
    private var previousDerivative = 0.0
    private var previousTime = 0.0

    public init(minimumCutoff: Double, speedCoefficient: Double, derivativeCutoff: Double = 1) {
        self.minimumCutoff = minimumCutoff
        self.speedCoefficient = speedCoefficient
        self.derivativeCutoff = derivativeCutoff
    }

    /// Smoothing factor of a first-order low-pass filter at `cutoff` Hz for a step of `dt` seconds.
    @inlinable public static func smoothingFactor(cutoff: Double, dt: Double) -> Double {
        let r = 2 * Double.pi * cutoff * dt
        return r / (r + 1)
    }

    /// Filters one sample taken at `time` (seconds); the first sample passes unchanged, and so
    /// does a sample whose time does not advance past the previous one's (nothing to smooth over).
    public mutating func filter(_ value: Double, time: Double) -> Double {
        guard let previous = previousValue, time > previousTime else {
            if previousValue == nil || time < previousTime { previousDerivative = 0 }
            previousValue = value
            previousTime = time
            return value
        }
        let dt = time - previousTime
        let derivative = (value - previous) / dt
        let smoothedDerivative = previousDerivative
            + Self.smoothingFactor(cutoff: derivativeCutoff, dt: dt) * (derivative - previousDerivative)
        let cutoff = minimumCutoff + speedCoefficient * abs(smoothedDerivative)
        let smoothed = previous + Self.smoothingFactor(cutoff: cutoff, dt: dt) * (value - previous)
        previousValue = smoothed
        previousDerivative = smoothedDerivative
        previousTime = time
        return smoothed
    }

    /// Forgets the past: the next sample passes unchanged.
    public mutating func reset() {
        previousValue = nil
        previousDerivative = 0
    }
}
