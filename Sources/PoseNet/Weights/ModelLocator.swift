import Foundation

/// Finds weight bundles by short name or path.
///
/// `resolve("mobilenet075")` looks for `mobilenet075.pkw` in, in order:
/// 1. `$POSEKIT_WEIGHTS_DIR`,
/// 2. `Weights/` in the package root above the running executable (found by walking up from
///    the executable to the first directory holding `Package.swift`; `make weights` puts the
///    imported bundles there),
/// 3. `./Weights/` and `.` in the current directory.
///
/// A string that names an existing file (or contains a `/` or ends in `.pkw`) is a path and
/// is used as is.
public enum ModelLocator {
    /// The bundled model used when none is given.
    public static let defaultModel = "mobilenet075"
    /// Short names `make weights` produces, best first.
    public static let knownModels = ["mobilenet075", "mobilenet050"]
    /// File extension of weight bundles.
    public static let bundleExtension = "pkw"

    /// Why a model could not be found.
    public struct NotFound: Error, CustomStringConvertible, Equatable {
        public let model: String
        public let searched: [String]
        public var description: String {
            if searched.isEmpty {
                return "\(model): no such weight bundle"
            }
            return "model '\(model)' not found (looked in \(searched.joined(separator: ", "))); run `make weights` to import the bundled PoseNet weights, or set POSEKIT_WEIGHTS_DIR"
        }
    }

    /// The URL of the bundle `nameOrPath` names.
    ///
    /// - Parameters:
    ///   - nameOrPath: a short name (`"mobilenet075"`, `"mobilenet050"`, with or without
    ///     `.pkw`) or a path to a `.pkw` file.
    ///   - environment: environment variables (injectable for tests).
    ///   - currentDirectory: directory for relative lookups (injectable for tests).
    /// - Throws: ``NotFound`` with the directories searched and how to get the weights.
    public static func resolve(_ nameOrPath: String = defaultModel,
                               environment: [String: String] = ProcessInfo.processInfo.environment,
                               currentDirectory: String = FileManager.default.currentDirectoryPath) throws -> URL {
        let fm = FileManager.default
        let looksLikePath = nameOrPath.contains("/") || nameOrPath.hasSuffix(".\(bundleExtension)")
        let direct = nameOrPath.hasPrefix("/") ? nameOrPath : currentDirectory + "/" + nameOrPath
        if fm.fileExists(atPath: direct), !isDirectory(direct) { return URL(fileURLWithPath: direct).standardizedFileURL }
        if nameOrPath.contains("/") { throw NotFound(model: nameOrPath, searched: []) }

        let fileName = looksLikePath ? nameOrPath : "\(nameOrPath).\(bundleExtension)"
        let directories = searchDirectories(environment: environment, currentDirectory: currentDirectory)
        for directory in directories {
            let candidate = directory + "/" + fileName
            if fm.fileExists(atPath: candidate) { return URL(fileURLWithPath: candidate).standardizedFileURL }
        }
        throw NotFound(model: nameOrPath, searched: directories)
    }

    /// Directories ``resolve(_:environment:currentDirectory:)`` searches, in order.
    public static func searchDirectories(environment: [String: String] = ProcessInfo.processInfo.environment,
                                         currentDirectory: String = FileManager.default.currentDirectoryPath) -> [String] {
        var out: [String] = []
        if let dir = environment["POSEKIT_WEIGHTS_DIR"], !dir.isEmpty { out.append(dir) }
        if let root = packageRoot() { out.append(root + "/Weights") }
        out.append(currentDirectory + "/Weights")
        out.append(currentDirectory)
        var seen: Set<String> = []
        return out.filter { seen.insert(URL(fileURLWithPath: $0).standardizedFileURL.path).inserted }
    }

    /// The first ancestor of the running executable that holds `Package.swift`, if any.
    public static func packageRoot() -> String? {
        let exe = (try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/exe")) ?? CommandLine.arguments.first ?? ""
        var dir = URL(fileURLWithPath: exe).deletingLastPathComponent().standardizedFileURL
        while dir.path != "/" && !dir.path.isEmpty {
            if FileManager.default.fileExists(atPath: dir.appendingPathComponent("Package.swift").path) { return dir.path }
            dir = dir.deletingLastPathComponent()
        }
        return nil
    }

    private static func isDirectory(_ path: String) -> Bool {
        var flag: ObjCBool = false
        return FileManager.default.fileExists(atPath: path, isDirectory: &flag) && flag.boolValue
    }
}
