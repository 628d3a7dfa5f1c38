import ArgumentParser
import PoseKit

/// `--precision fp32|bf16|int8|auto` (Tensor's `Precision`).
extension Precision: ExpressibleByArgument {}

extension Precision {
    /// `--precision` as it runs here: an explicit bf16 or int8 this CPU lacks is one line and exit 1,
    /// before any work.
    func require() throws {
        if let problem = unavailability { throw CLIError("--precision \(rawValue): \(problem)") }
    }
}
