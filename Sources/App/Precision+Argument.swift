import ArgumentParser
import PoseKit

/// `--precision fp32|bf16|int8|auto` (Tensor's `Precision`).
extension Precision: ExpressibleByArgument {}
