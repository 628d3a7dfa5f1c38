import FrameIO

/// Errors that end the whole run instead of one input: an output that cannot be written, a
/// reader that has gone away, a stop signal.
public func endsTheRun(_ error: Error) -> Bool {
    guard let error = error as? FrameIOError else { return false }
    switch error {
    case .brokenPipe, .interrupted, .writeFailed: return true
    default: return false
    }
}
