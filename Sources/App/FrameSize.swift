import ArgumentParser

/// A frame size on the command line, `WxH` (e.g. `640x480`).
struct FrameSize: ExpressibleByArgument, CustomStringConvertible, Sendable {
    let width: Int, height: Int

    init?(argument: String) {
        let parts = argument.lowercased().split(separator: "x", omittingEmptySubsequences: false)
        guard parts.count == 2, let width = Int(parts[0]), let height = Int(parts[1]),
              (1...16384).contains(width), (1...16384).contains(height) else { return nil }
        (self.width, self.height) = (width, height)
    }

    var description: String { "\(width)x\(height)" }
}
