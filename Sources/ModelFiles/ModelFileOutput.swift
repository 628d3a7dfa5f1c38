import Foundation
import PoseKit

/// How a model file is written (`import`, `weights install`, `train-actions`): whole or not at
/// all, through `OutputFile` (a full disk or a stop leaves the earlier file, never a cut one),
/// its directory created first (as `-o Weights/x.pkw` expects).
public enum ModelFileOutput {
    /// Writes `bytes` to `path`.
    public static func write(_ bytes: [UInt8], to path: String) throws {
        try ModelFileError.creatingParent(of: path)
        let file = try OutputFile(path: path)
        try OutputFile.committing([file]) { try file.sink.write(bytes) }
    }
}
