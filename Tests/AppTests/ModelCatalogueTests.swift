import Foundation
import PoseKit
import Testing

/// The one model catalogue (`ModelCatalogue`): its facts against the published files and the
/// bundles `make weights` imported, and every place that reads it (names, suggestions, `info`,
/// completion, the detectors), through the command.
@Suite struct ModelCatalogueTests {
    static let image = CLI.shared.appendingPathComponent("media/images/coco_000000000785.ppm").path

    /// SHA-256 of a file by the system's `sha256sum` (not PoseKit's own digest).
    static func sha256sum(_ url: URL) throws -> String {
        let result = try CLI.runProcess(URL(fileURLWithPath: "/usr/bin/env"), ["sha256sum", url.path])
        return String(result.stdoutText.prefix { $0 != " " })
    }

    /// Each bundle's source file is where the catalogue says, with its SHA-256; the licence and
    /// source each imported bundle in `Weights/` records are the catalogue's.
    @Test func catalogueFactsMatchThePublishedFilesAndTheImportedBundles() throws {
        #expect(ModelCatalogue.bundleNames.count == 9)
        for bundle in ModelCatalogue.bundles {
            let file = bundle.source.directory.map { CLI.shared.appendingPathComponent("weights/\($0)/\(bundle.source.fileName)") }
                ?? CLI.repositoryRoot.appendingPathComponent("Weights/\(bundle.source.fileName)")
            #expect(try Self.sha256sum(file) == bundle.source.sha256, "\(bundle.name): \(file.path)")
            let imported = try WeightBundle(contentsOf: CLI.repositoryRoot.appendingPathComponent("Weights/\(bundle.name).pkw"))
            #expect(imported.manifest.license == bundle.license, "\(bundle.name)")
            #expect(imported.manifest.source.fileName == bundle.source.fileName, "\(bundle.name)")
            if bundle.source.directory != nil {
                #expect(imported.manifest.source.sha256 == bundle.source.sha256, "\(bundle.name)")
            }
        }
        // Every model's bundles are known, each family has a model, the names are unique.
        #expect(Set(ModelCatalogue.models.map(\.name)).count == ModelCatalogue.models.count)
        for family in ModelCatalogue.Family.allCases { #expect(!ModelCatalogue.names(of: [family]).isEmpty, "\(family)") }
    }

    /// The detectors and the locator name their bundles from the catalogue: the files MediaPipe's
    /// wheel and the PoseNet sources are named after.
    @Test func detectorsLoadTheCatalogueBundles() {
        #expect(BlazePoseDetector.detectorModel == "pose_detection" && BlazePoseDetector.landmarkModel == "pose_landmark_full")
        #expect(HandDetector.Model.full.palmDetectorBundle == "palm_detection_full" && HandDetector.Model.full.landmarkBundle == "hand_landmark_full")
        #expect(HandDetector.Model.lite.palmDetectorBundle == "palm_detection_lite" && HandDetector.Model.lite.landmarkBundle == "hand_landmark_lite")
        #expect(ModelLocator.knownModels == ["mobilenet075", "mobilenet050"] && ModelLocator.defaultModel == PoseModel.default.description)
        #expect(ActionRecognizer.defaultWeights == "actionnet")
        for model in [PoseModel.mobilenet075, .mobilenet050] {
            #expect(ModelCatalogue.model(named: model.description)?.family == .poseNet)
        }
    }

    /// A misspelt model is a usage error (exit 2) before any work, listing the names the option
    /// takes and the nearest one.
    @Test(arguments: [
        (["pose", "--model", "blazpose", image], "--model blazpose: no model 'blazpose' (did you mean 'blazepose'? models: mobilenet075, mobilenet050, blazepose)"),
        (["pose", "--model", "mobilenet999", image], "did you mean 'mobilenet075'?"),
        (["pose", "--hands", "--model", "BlazePose", image], "did you mean 'blazepose'?"),
        (["actions", "--model", "blazpose", "clip.y4m"], "did you mean 'blazepose'?"),
        (["eval", "--model", "moblenet050", "--ground-truth", "gt.json", image], "did you mean 'mobilenet050'?"),
        (["actions", "--weights", "actionet", "--poses", "-"], "--weights actionet: no model 'actionet' (did you mean 'actionnet'? models: actionnet)"),
        (["bench", "model", "--models", "mobilenet75"], "did you mean 'mobilenet075'?"),
        (["bench", "model", "--models", "palm_detecton_full"], "did you mean 'palm_detection_full'?"),
    ])
    func aMisspeltNameListsTheNamesAndSuggestsTheNearest(_ arguments: [String], _ expected: String) throws {
        let result = try CLI.run(arguments)
        #expect(result.status == 2, "\(arguments): \(result.stderr)")
        #expect(result.stderr.contains(expected), "\(arguments): \(result.stderr)")
        #expect(result.stdout.isEmpty)
    }

    /// A name the typed one begins, up to a typo, is suggested before a name fewer edits away
    /// as a whole: `palm_detection` (no bundle: there are a full and a lite one) is
    /// `palm_detection_full`, though `pose_detection` is 3 edits from it and the palm detectors 5.
    @Test func aNameTheTypedOneBeginsComesBeforeFewerEdits() {
        let names = ModelCatalogue.bundleNames
        #expect(ModelCatalogue.suggestion(for: "palm_detection", among: names) == "palm_detection_full")
        #expect(ModelCatalogue.suggestion(for: "palm_detecton", among: names) == "palm_detection_full")
        #expect(ModelCatalogue.suggestion(for: "Palm_Detection_Lit", among: names) == "palm_detection_lite")
        #expect(ModelCatalogue.suggestion(for: "pose_detecton", among: names) == "pose_detection")
        #expect(ModelCatalogue.suggestion(for: "hand_landmark", among: names) == "hand_landmark_full")
        // The whole-name rule as before, and no guess for what is near nothing.
        #expect(ModelCatalogue.suggestion(for: "blazpose", among: ModelCatalogue.names(of: [.poseNet, .blazePose])) == "blazepose")
        #expect(ModelCatalogue.suggestion(for: "mobilenet999", among: names) == "mobilenet075")
        #expect(ModelCatalogue.suggestion(for: "x", among: names) == nil)
        #expect(ModelCatalogue.suggestion(for: "resnet", among: names) == nil)
    }

    /// A far-off name gets the list without a guess; a bundle named by path is the loader's
    /// business (its error says where it looked).
    @Test func aFarOffNameGetsTheListOnly() throws {
        let result = try CLI.run(["pose", "--model", "resnet", Self.image])
        #expect(result.status == 2 && result.stderr.contains("no model 'resnet' (models: mobilenet075, mobilenet050, blazepose)"), "\(result.stderr)")
        let path = try CLI.run(["pose", "--model", "/nonexistent/model.pkw", Self.image])
        #expect(path.status == 1 && path.stderr.hasPrefix("posekit: error: /nonexistent/model.pkw"), "\(path.stderr)")
    }

    /// `run` on a model of several graphs names them (one line, before any input is read).
    @Test func runOnAModelOfSeveralGraphsNamesThem() throws {
        let result = try CLI.run(["run", "blazepose", "--list"])
        #expect(result.status == 1 && result.stderr == "posekit: error: blazepose is 2 graphs; give one: pose_detection, pose_landmark_full\n",
                "\(result.stderr)")
    }

    /// `info NAME` of a model of several bundles describes each (where found, source, SHA-256, licence).
    @Test func infoDescribesAModelOfSeveralBundles() throws {
        let result = try CLI.run(["info", "blazepose"])
        #expect(result.status == 0, "\(result.stderr)")
        let text = result.stdoutText
        #expect(text.hasPrefix("blazepose: MediaPipe BlazePose"), "\(text)")
        for bundle in ["pose_detection", "pose_landmark_full"] {
            #expect(text.contains("bundle        \(bundle) → \(CLI.repositoryRoot.appendingPathComponent("Weights/\(bundle).pkw").path)"), "\(text)")
        }
        #expect(text.contains("mediapipe-0.10.14/pose_detection.tflite (tflite), sha256 9ba9dd3d42efaaba86b4ff0122b06f29c4122e756b329d89dca1e297fd8f866c"))
        #expect(text.contains("license     Apache-2.0: MediaPipe pose_landmark_full model"))
        let hands = try CLI.run(["info", "hands-lite"])
        #expect(hands.status == 0 && hands.stdoutText.contains("palm_detection_lite") && hands.stdoutText.contains("hand_landmark_lite"), "\(hands.stderr)")
    }

    /// Shell completion of `--model` offers the model names (and `.pkw` files), not files only;
    /// `--weights`, `info` and `bench model` likewise.
    @Test func completionOffersModelNames() throws {
        func complete(_ command: [String], _ option: String, _ typed: String) throws -> [String] {
            let result = try CLI.run(["---completion"] + command + ["--", option, "0", String(typed.count), typed],
                                     environment: ["SAP_SHELL": "bash"])
            #expect(result.status == 0, "\(result.stderr)")
            return result.lines
        }
        #expect(try complete(["pose"], "--model", "").starts(with: ["mobilenet075", "mobilenet050", "blazepose"]))
        #expect(try complete(["pose"], "--model", "bla") == ["blazepose"])
        #expect(try complete(["actions"], "--model", "mob") == ["mobilenet075", "mobilenet050"])
        #expect(try complete(["actions"], "--weights", "a") == ["actionnet"])
        #expect(try complete(["bench", "model"], "--models", "palm") == ["palm_detection_full", "palm_detection_lite"])
        // Bundles in the directory typed so far.
        #expect(try complete(["pose"], "--model", "Weights/mob") == ["Weights/mobilenet050.pkw", "Weights/mobilenet075.pkw"])
    }
}
