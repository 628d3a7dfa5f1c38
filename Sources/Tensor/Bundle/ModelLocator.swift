import Foundation

/// Finds weight bundles (`.pkw`, PoseNet and ActionNet alike) by short name or path.
///
/// `resolve("mobilenet075")` looks for `mobilenet075.pkw`, in order:
/// 1. a path: a string that names an existing file is used as is (relative to the current
///    directory); one that contains `/` is never searched for elsewhere;
/// 2. `$POSEKIT_WEIGHTS_DIR`;
/// 3. the per-user directory ``userDirectory(environment:)``: `$XDG_DATA_HOME/posekit/weights`,
///    by default `~/.local/share/posekit/weights`, which `posekit weights install` fills;
/// 4. `Weights/` of the PoseKit checkout this library was compiled from (found from this source
///    file's path at compile time; `make weights` imports the PoseNet bundles there). It exists
///    for a clone and for a package that depends on the checkout by path.
///
/// It never searches the current directory or the running program's own package: a client's
/// `Weights/` folder is not PoseKit's.
public enum ModelLocator {
    /// The bundled model used when none is given (``ModelCatalogue``'s first PoseNet model).
    public static let defaultModel = ModelCatalogue.names(of: [.poseNet])[0]
    /// Short names of the PoseNet bundles, best first (``ModelCatalogue``).
    public static let knownModels = ModelCatalogue.names(of: [.poseNet])
    /// Short name of the action classifier's bundle (``ModelCatalogue``).
    public static let actionModel = ModelCatalogue.names(of: [.actionNet])[0]
    /// File extension of weight bundles.
    public static let bundleExtension = "pkw"
    /// The command that installs every bundle into the per-user directory.
    public static let installCommand = "posekit weights install"

    /// One place ``resolve(_:fileExtension:environment:currentDirectory:checkoutWeights:)`` searches.
    public struct SearchLocation: Equatable, Sendable {
        /// What the place is: `"POSEKIT_WEIGHTS_DIR"`, `"user"`, `"checkout"`.
        public let origin: String
        /// The directory.
        public let directory: String
    }

    /// Why a model could not be found.
    public struct NotFound: Error, CustomStringConvertible, Equatable {
        public let model: String
        public let searched: [String]
        /// One line: for a bundle ``ModelCatalogue`` lists, where it was looked for and the
        /// command that installs it; for another name, also the names there are and the nearest.
        public var description: String {
            if searched.isEmpty {
                return "\(model): no such weight bundle"
            }
            let looked = "model '\(model)' not found (looked in \(searched.joined(separator: ", ")))"
            let suffix = "." + ModelLocator.bundleExtension
            let name = model.hasSuffix(suffix) ? String(model.dropLast(suffix.count)) : model
            guard ModelCatalogue.bundle(named: name) != nil else {
                let nearest = ModelCatalogue.suggestion(for: name, among: ModelCatalogue.bundleNames).map { "did you mean '\($0)'? " } ?? ""
                return looked + ": not one of PoseKit's bundles (\(nearest)bundles: \(ModelCatalogue.bundleNames.joined(separator: ", ")))"
            }
            return looked + "; run `\(ModelLocator.installCommand)` to install the weights"
        }
    }

    /// The URL of the bundle `nameOrPath` names.
    ///
    /// - Parameters:
    ///   - nameOrPath: a short name (`"mobilenet075"`, `"mobilenet050"`, `"actionnet"`, with or
    ///     without `.pkw`) or a path to a `.pkw` file.
    ///   - fileExtension: the extension a short name gets: `pkw` for bundles, `mlmodel` for a Create
    ///     ML classifier kept in the same places.
    ///   - environment: environment variables (injectable for tests): `POSEKIT_WEIGHTS_DIR`,
    ///     `XDG_DATA_HOME`, `HOME`.
    ///   - currentDirectory: what relative paths are relative to (injectable for tests).
    ///   - checkoutWeights: the checkout's `Weights/` (default ``checkoutWeightsDirectory``; tests pass nil).
    /// - Throws: ``NotFound`` with the directories searched and the command that installs the weights.
    public static func resolve(_ nameOrPath: String = defaultModel, fileExtension: String = bundleExtension,
                               environment: [String: String] = ProcessInfo.processInfo.environment,
                               currentDirectory: String = FileManager.default.currentDirectoryPath,
                               checkoutWeights: String? = checkoutWeightsDirectory) throws -> URL {
        let fm = FileManager.default
        let direct = nameOrPath.hasPrefix("/") ? nameOrPath : currentDirectory + "/" + nameOrPath
        if fm.fileExists(atPath: direct), !isDirectory(direct) { return URL(fileURLWithPath: direct).standardizedFileURL }
        if nameOrPath.contains("/") { throw NotFound(model: nameOrPath, searched: []) }
        let fileName = nameOrPath.hasSuffix(".\(fileExtension)") ? nameOrPath : "\(nameOrPath).\(fileExtension)"
        let locations = searchLocations(environment: environment, checkoutWeights: checkoutWeights)
        for location in locations {
            let candidate = location.directory + "/" + fileName
            if fm.fileExists(atPath: candidate) { return URL(fileURLWithPath: candidate).standardizedFileURL }
        }
        throw NotFound(model: nameOrPath, searched: locations.map(\.directory))
    }

    /// The places ``resolve(_:fileExtension:environment:currentDirectory:checkoutWeights:)`` searches, in order
    /// (the checkout's only when it exists).
    public static func searchLocations(environment: [String: String] = ProcessInfo.processInfo.environment,
                                       checkoutWeights: String? = checkoutWeightsDirectory) -> [SearchLocation] {
        var out: [SearchLocation] = []
        if let dir = environment["POSEKIT_WEIGHTS_DIR"], !dir.isEmpty { out.append(SearchLocation(origin: "POSEKIT_WEIGHTS_DIR", directory: dir)) }
        if let user = userDirectory(environment: environment) { out.append(SearchLocation(origin: "user", directory: user)) }
        if let checkoutWeights, isDirectory(checkoutWeights) { out.append(SearchLocation(origin: "checkout", directory: checkoutWeights)) }
        var seen: Set<String> = []
        return out.filter { seen.insert(URL(fileURLWithPath: $0.directory).standardizedFileURL.path).inserted }
    }

    /// Directories searched, in order (``searchLocations(environment:checkoutWeights:)``).
    public static func searchDirectories(environment: [String: String] = ProcessInfo.processInfo.environment,
                                         checkoutWeights: String? = checkoutWeightsDirectory) -> [String] {
        searchLocations(environment: environment, checkoutWeights: checkoutWeights).map(\.directory)
    }

    /// The per-user weights directory: `$XDG_DATA_HOME/posekit/weights`, or
    /// `$HOME/.local/share/posekit/weights` when `XDG_DATA_HOME` is unset or not absolute (the
    /// XDG Base Directory rule); nil without a home directory.
    public static func userDirectory(environment: [String: String] = ProcessInfo.processInfo.environment) -> String? {
        if let data = environment["XDG_DATA_HOME"], data.hasPrefix("/") { return data + "/posekit/weights" }
        guard let home = environment["HOME"], home.hasPrefix("/") else { return nil }
        return home + "/.local/share/posekit/weights"
    }

    /// The root of the PoseKit checkout this library was compiled from (this file is
    /// `<root>/Sources/Tensor/Bundle/ModelLocator.swift`), if it still exists.
    public static func packageRoot() -> String? {
        let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent().deletingLastPathComponent()
        return FileManager.default.fileExists(atPath: root.appendingPathComponent("Package.swift").path) ? root.path : nil
    }

    /// `Weights/` of the checkout this library was compiled from, if the checkout still exists.
    public static var checkoutWeightsDirectory: String? { packageRoot().map { $0 + "/Weights" } }

    private static func isDirectory(_ path: String) -> Bool {
        var flag: ObjCBool = false
        return FileManager.default.fileExists(atPath: path, isDirectory: &flag) && flag.boolValue
    }
}

extension ModelLocator.NotFound: LocalizedError {
    /// ``description``: `localizedDescription` is the one line `posekit` prints after `posekit: error: `.
    public var errorDescription: String? { description }
}
