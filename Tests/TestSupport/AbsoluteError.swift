/// `|a − b|`, or infinity when either is NaN.
///
/// `max` and `<=` pass over NaN (`max(0, .nan)` is 0), so an output element a kernel never wrote
/// (tests fill outputs with NaN) must count as the worst error there is, or a comparison that
/// keeps the largest error lets it through.
public func absoluteError<T: FloatingPoint>(_ a: T, _ b: T) -> T {
    let d = abs(a - b)
    return d.isNaN ? .infinity : d
}
