import ArgumentParser
import Foundation
import ModelFiles
import PoseKit

/// `posekit weights install|list`: puts the weights where every PoseKit client finds them (the
/// per-user directory) and shows what is found where.
struct WeightsCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "weights",
        abstract: "Install the weights into the per-user directory, or list where weights are found.",
        discussion: """
            Weights are searched, first match wins: a path given on the command line; \
            $POSEKIT_WEIGHTS_DIR; the per-user directory $XDG_DATA_HOME/posekit/weights \
            (default ~/.local/share/posekit/weights); the Weights/ directory of the PoseKit \
            checkout posekit was built from. Never the current directory.

            EXAMPLES
              posekit weights install
              posekit weights install --from ../shared/weights
              posekit weights list
            """,
        subcommands: [WeightsInstall.self, WeightsList.self],
        defaultSubcommand: WeightsList.self)
}

/// `posekit weights install`: every bundle of ``ModelCatalogue`` into the per-user directory: the
/// published files imported (each checked against the catalogue's SHA-256 first), ActionNet's
/// bundle copied from the checkout.
struct WeightsInstall: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "install",
        abstract: "Import every model a command can ask for (PoseNet, BlazePose, hands) and copy ActionNet into the per-user directory.",
        discussion: """
            The published files are read from --from DIR (default $POSEKIT_WEIGHTS_SRC, else \
            ../shared/weights beside the PoseKit checkout), each checked against the SHA-256 PoseKit \
            knows before it is imported: \
            \(ModelCatalogue.bundles.compactMap { bundle in bundle.source.directory.map { "\($0)/\(bundle.source.fileName)" } }.joined(separator: ", ")). \
            The ActionNet bundle is copied from the checkout's Weights/. Existing files are replaced atomically.
            """)

    @Option(help: "Directory holding the published models (a folder per source, as ../shared/weights).")
    var from: String?

    func run() throws {
        let environment = ProcessInfo.processInfo.environment
        guard let destination = ModelLocator.userDirectory(environment: environment) else {
            throw CLIError("no per-user directory: set HOME or XDG_DATA_HOME (or use POSEKIT_WEIGHTS_DIR)")
        }
        let sourceDirectory = from ?? environment["POSEKIT_WEIGHTS_SRC"].flatMap { $0.isEmpty ? nil : $0 }
            ?? ModelLocator.packageRoot().map { URL(fileURLWithPath: $0).deletingLastPathComponent().appendingPathComponent("shared/weights").path }
        let example = ModelCatalogue.bundles.compactMap(\.source.directory).first ?? ""
        guard let sourceDirectory else {
            throw CLIError("no weights source: pass --from DIR (the directory holding \(example)/)")
        }
        guard FileManager.default.fileExists(atPath: sourceDirectory) else {
            throw CLIError("\(sourceDirectory): no such directory; pass --from DIR (the directory holding \(example)/)")
        }
        try ModelFileError.creatingParent(of: destination + "/x")
        try WeightsInstallation.install(from: sourceDirectory, to: destination, print: { print($0) })
    }
}

/// `posekit weights list`: the search order and the bundles in each place.
struct WeightsList: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "list",
        abstract: "Show where weights are searched, what each place holds and which file each name resolves to.")

    func run() throws {
        print("search order (first match wins; a path given on the command line comes before all):")
        let locations = ModelLocator.searchLocations()
        if locations.isEmpty { print("  (none: set POSEKIT_WEIGHTS_DIR or HOME)") }
        for (i, location) in locations.enumerated() {
            print("  \(i + 1). \(location.origin.padding(toLength: 20, withPad: " ", startingAt: 0)) \(location.directory)")
            let files = ((try? FileManager.default.contentsOfDirectory(atPath: location.directory)) ?? [])
                .filter { $0.hasSuffix(".\(ModelLocator.bundleExtension)") }.sorted()
            for file in files {
                let path = location.directory + "/" + file
                let kind = (try? WeightBundle(contentsOf: URL(fileURLWithPath: path)))?.manifest.kind ?? "not a valid bundle"
                print("       \(file)  \(kind)")
            }
        }
        for name in ModelCatalogue.bundleNames {
            if let url = try? ModelLocator.resolve(name) {
                print("\(name) → \(url.path)")
            } else {
                print("\(name) → not found; run `\(ModelLocator.installCommand)`")
            }
        }
    }
}
