import Foundation

/// MediaPipe's `OneEuroFilter` (`mediapipe/util/filtering/one_euro_filter.cc`) for one coordinate.
///
/// Per sample at timestamp t (nanoseconds): the frequency from the step since the last sample
/// (the first sample keeps the initial 30 Hz), the speed `(v − last raw)·valueScale·freq`
/// low-passed at `derivativeCutoff`, then the value low-passed at cutoff
/// `minCutoff + β·|speed|`, with α(c) = 1 / (1 + (1 / 2πc)·freq). Double precision for the
/// maths, float32 filter state, as MediaPipe has them. A timestamp not after the last one returns
/// the value unfiltered.
public struct OneEuroFilter: Sendable {
    public var minCutoff: Double
    public var beta: Double
    public var derivativeCutoff: Double
    private var frequency: Double
    private var lastTimestamp: Int64 = 0
    private var value: LowPassFilter
    private var derivative: LowPassFilter

    /// The settings as MediaPipe's proto floats (`0.05` is the float 0.05, widened to double).
    public init(frequency: Float = 30, minCutoff: Float, beta: Float, derivativeCutoff: Float) {
        self.frequency = Double(frequency)
        self.minCutoff = Double(minCutoff)
        self.beta = Double(beta)
        self.derivativeCutoff = Double(derivativeCutoff)
        value = LowPassFilter(alpha: Self.alpha(cutoff: Double(minCutoff), frequency: Double(frequency)))
        derivative = LowPassFilter(alpha: Self.alpha(cutoff: Double(derivativeCutoff), frequency: Double(frequency)))
    }

    static func alpha(cutoff: Double, frequency: Double) -> Float {
        let te = 1.0 / frequency
        let tau = 1.0 / (2 * Double.pi * cutoff)
        return Float(1.0 / (1.0 + tau / te))
    }

    public mutating func apply(_ sample: Double, timestampNanoseconds timestamp: Int64, valueScale: Double) -> Double {
        if lastTimestamp >= timestamp { return sample }
        if lastTimestamp != 0 && timestamp != 0 {
            frequency = 1.0 / (Double(timestamp - lastTimestamp) * 1e-9)
        }
        lastTimestamp = timestamp
        let speed = value.isInitialized ? (sample - Double(value.lastRawValue)) * valueScale * frequency : 0
        let smoothedSpeed = Double(derivative.apply(Float(speed), alpha: Self.alpha(cutoff: derivativeCutoff, frequency: frequency)))
        let cutoff = minCutoff + beta * abs(smoothedSpeed)
        return Double(value.apply(Float(sample), alpha: Self.alpha(cutoff: cutoff, frequency: frequency)))
    }
}
