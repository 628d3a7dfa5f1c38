import ArgumentParser
import Foundation
import PoseKit
import PoseNetImport

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

/// `posekit weights install`: imports the published PoseNet models and copies the ActionNet bundle
/// into the per-user directory.
struct WeightsInstall: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "install",
        abstract: "Import the published PoseNet weights and copy the ActionNet weights into the per-user directory.",
        discussion: """
            The PoseNet models are read from --from DIR (default $POSEKIT_WEIGHTS_SRC, else \
            ../shared/weights beside the PoseKit checkout): \
            \(WeightsInstall.published.map { "\($0.directory)/\($0.file)" }.joined(separator: ", ")). \
            The ActionNet bundle is copied from the checkout's Weights/. Existing files are replaced atomically.
            """)

    /// The published PoseNet files `make weights` imports, by short name.
    static let published: [(name: String, directory: String, file: String)] = [
        ("mobilenet075", "posenet-mobilenet075-s16-coreml", "PoseNetMobileNet075S16FP16.mlmodel"),
        ("mobilenet050", "posenet-mobilenet050-tf", "model-mobilenet_v1_050.pb"),
    ]

    @Option(help: "Directory holding the published PoseNet models.")
    var from: String?

    func run() throws {
        let environment = ProcessInfo.processInfo.environment
        guard let destination = ModelLocator.userDirectory(environment: environment) else {
            throw CLIError("no per-user directory: set HOME or XDG_DATA_HOME (or use POSEKIT_WEIGHTS_DIR)")
        }
        let sourceDirectory = from ?? environment["POSEKIT_WEIGHTS_SRC"].flatMap { $0.isEmpty ? nil : $0 }
            ?? ModelLocator.packageRoot().map { URL(fileURLWithPath: $0).deletingLastPathComponent().appendingPathComponent("shared/weights").path }
        guard let sourceDirectory else {
            throw CLIError("no weights source: pass --from DIR (the directory holding \(Self.published[0].directory)/)")
        }
        guard FileManager.default.fileExists(atPath: sourceDirectory) else {
            throw CLIError("\(sourceDirectory): no such directory; pass --from DIR (the directory holding \(Self.published[0].directory)/)")
        }
        try CLIError.creatingParent(of: destination + "/x")
        for model in Self.published {
            let source = "\(sourceDirectory)/\(model.directory)/\(model.file)"
            let imported = try CLIError.reading(source) { try WeightImporter.importModel(at: URL(fileURLWithPath: source)) }
            let bytes = try imported.bundleWriter(storage: .automatic).encoded()
            try Self.write(bytes, to: "\(destination)/\(model.name).pkw")
            print("installed \(model.name): imported \(source) → \(destination)/\(model.name).pkw")
        }
        guard let checkout = ModelLocator.checkoutWeightsDirectory else {
            throw CLIError("the PoseKit checkout posekit was built from is gone: cannot copy \(ModelLocator.actionModel).pkw")
        }
        let action = "\(checkout)/\(ModelLocator.actionModel).\(ModelLocator.bundleExtension)"
        let bundle = try CLIError.reading(action) { try WeightBundle(contentsOf: URL(fileURLWithPath: action)) }
        try CLIError.reading(action) { try bundle.requireKind(ModelLocator.actionModel) }
        let bytes = try CLIError.reading(action) { try [UInt8](Data(contentsOf: URL(fileURLWithPath: action))) }
        try Self.write(bytes, to: "\(destination)/\(ModelLocator.actionModel).pkw")
        print("installed \(ModelLocator.actionModel): copied \(action) → \(destination)/\(ModelLocator.actionModel).pkw")
    }

    /// Writes a file atomically.
    static func write(_ bytes: [UInt8], to path: String) throws {
        let file = try OutputFile(path: path)
        try OutputFile.committing([file]) { try file.sink.write(bytes) }
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
        for name in ModelLocator.knownModels + [ModelLocator.actionModel] {
            if let url = try? ModelLocator.resolve(name) {
                print("\(name) → \(url.path)")
            } else {
                print("\(name) → not found; run `\(ModelLocator.installCommand)`")
            }
        }
    }
}
