import Foundation
import PoseCore
import Tensor

extension CreateMLActionClassifier {
    /// The Create ML classifier at `nameOrPath`: a path, or a short name found as `NAME.mlmodel`
    /// where weight bundles are kept (``/Tensor/ModelLocator``); its errors name the path
    /// (``init(contentsOf:threads:)``).
    /// - Throws: ``CoreMLModelError/notFound(model:searched:)`` naming every place searched when
    ///   a short name is found nowhere; the reader's errors otherwise.
    public static func loading(_ nameOrPath: String) throws -> CreateMLActionClassifier {
        let path = modelPath(nameOrPath) ?? nameOrPath
        if !nameOrPath.contains("/"), !FileManager.default.fileExists(atPath: path) {
            // A bare name found nowhere: say where it was looked for.
            let fileName = nameOrPath.lowercased().hasSuffix(".mlmodel") ? nameOrPath : nameOrPath + ".mlmodel"
            let current = FileManager.default.currentDirectoryPath + "/" + nameOrPath
            throw CoreMLModelError.notFound(model: nameOrPath, searched: [current] + ModelLocator.searchDirectories().map { $0 + "/" + fileName })
        }
        // A regular file only: a FIFO named like a model must not make the caller wait. Messages
        // name the path as given, not made absolute.
        return try CreateMLActionClassifier(bytes: [UInt8](RegularFile.contents(atPath: path)), fileName: path)
    }

    /// The `.mlmodel` `nameOrPath` names: itself when it ends in `.mlmodel` (found by ``/Tensor/ModelLocator``
    /// when it is a bare name), `NAME.mlmodel` where bundles are kept, or nil (not a Create ML model).
    public static func modelPath(_ nameOrPath: String) -> String? {
        let found = try? ModelLocator.resolve(nameOrPath, fileExtension: "mlmodel")
        if let found, found.pathExtension.lowercased() == "mlmodel" { return found.path }
        return nameOrPath.lowercased().hasSuffix(".mlmodel") ? nameOrPath : nil
    }
}
