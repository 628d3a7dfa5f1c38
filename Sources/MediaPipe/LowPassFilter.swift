/// MediaPipe's `LowPassFilter` (`mediapipe/util/filtering/low_pass_filter.cc`): exponential
/// smoothing `α·v + (1 − α)·previous`, the first value passing through. Float32 state, the
/// `(1 − α)` term in double, as MediaPipe's `1.0 - alpha_` is.
public struct LowPassFilter: Sendable {
    public private(set) var alpha: Float
    public private(set) var lastRawValue: Float = 0
    public private(set) var lastValue: Float = 0
    public private(set) var isInitialized = false

    public init(alpha: Float) {
        self.alpha = alpha
    }

    /// Filters `value` with the current α.
    public mutating func apply(_ value: Float) -> Float {
        let result: Float
        if isInitialized {
            result = Float(Double(alpha * value) + (1.0 - Double(alpha)) * Double(lastValue))
        } else {
            result = value
            isInitialized = true
        }
        lastRawValue = value
        lastValue = result
        return result
    }

    /// Sets α (ignored outside [0, 1], as MediaPipe logs and ignores it) and filters `value`.
    public mutating func apply(_ value: Float, alpha newAlpha: Float) -> Float {
        if newAlpha >= 0 && newAlpha <= 1 { alpha = newAlpha }
        return apply(value)
    }
}
