import ArgumentParser
import PoseKit

/// `--coordinates pixels|normalized|vision` (PoseCore's `KeypointCoordinates`).
extension KeypointCoordinates: ExpressibleByArgument {}
