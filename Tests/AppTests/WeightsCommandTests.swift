import Foundation
import Testing

/// Finding, installing, describing and converting weight bundles, through the `posekit` binary
/// with an injected environment (a scratch home directory; nothing outside it is written).
@Suite struct WeightsCommandTests {
    /// An environment whose only weights are the checkout's (no POSEKIT_WEIGHTS_DIR, an empty home).
    static func isolated(home: URL) -> [String: String] {
        ["HOME": home.path, "XDG_DATA_HOME": "", "POSEKIT_WEIGHTS_DIR": "", "POSEKIT_WEIGHTS_SRC": ""]
    }

    func expectOneLineError(_ result: CLI.Result, _ fragment: String, sourceLocation: SourceLocation = #_sourceLocation) {
        #expect(result.status == 1, "\(result.stderr)", sourceLocation: sourceLocation)
        #expect(result.stderr.hasPrefix("posekit: error: "), "\(result.stderr)", sourceLocation: sourceLocation)
        #expect(result.stderr.contains(fragment), "\(result.stderr)", sourceLocation: sourceLocation)
        #expect(result.stderr.split(separator: "\n").count == 1, "\(result.stderr)", sourceLocation: sourceLocation)
    }

    @Test func installFillsThePerUserDirectoryWhereEveryNameThenResolves() throws {
        let home = try CLI.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: home) }
        let env = Self.isolated(home: home)
        let user = home.appendingPathComponent(".local/share/posekit/weights")
        let install = try CLI.run(["weights", "install", "--from", CLI.shared.appendingPathComponent("weights").path], environment: env)
        #expect(install.status == 0, "\(install.stderr)")
        // Every model a command can ask for (pose --model, --model blazepose, hands --hand-model
        // full|lite, actions), byte for byte the bundle `make weights` imported into the checkout.
        let everyBundle = ["mobilenet075", "mobilenet050", "pose_detection", "pose_landmark_full", "palm_detection_full",
                           "palm_detection_lite", "hand_landmark_full", "hand_landmark_lite", "actionnet"]
        for name in everyBundle {
            let installed = user.appendingPathComponent("\(name).pkw")
            #expect(FileManager.default.fileExists(atPath: installed.path), "\(name)")
            let made = CLI.repositoryRoot.appendingPathComponent("Weights/\(name).pkw")
            #expect((try? Data(contentsOf: installed)) == (try? Data(contentsOf: made)), "\(name) differs from \(made.path)")
        }
        let list = try CLI.run(["weights", "list"], environment: env)
        #expect(list.status == 0, "\(list.stderr)")
        let text = list.stdoutText
        #expect(text.contains("user") && text.contains(user.path))
        for name in everyBundle {
            #expect(text.contains("\(name) → \(user.path)/\(name).pkw"), "\(text)")
        }
        let info = try CLI.run(["info", "mobilenet050"], environment: env)
        #expect(info.status == 0 && info.lines.first?.hasPrefix(user.appendingPathComponent("mobilenet050.pkw").path) == true, "\(info.stdoutText)")
        // XDG_DATA_HOME moves the per-user directory.
        let xdg = try CLI.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: xdg) }
        var moved = env
        moved["XDG_DATA_HOME"] = xdg.path
        let missing = try CLI.run(["weights", "install", "--from", home.appendingPathComponent("nowhere").path], environment: moved)
        expectOneLineError(missing, "nowhere: no such directory")
    }

    /// A name that is no model of PoseKit's is not sent to `weights install` (which would not
    /// install it): the names there are and the nearest, with where it was looked for.
    @Test func aNameThatIsNoModelListsTheNamesAndTheNearest() throws {
        let home = try CLI.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: home) }
        let result = try CLI.run(["info", "mobilenet999"], environment: Self.isolated(home: home))
        expectOneLineError(result, "did you mean 'mobilenet075'?")
        #expect(!result.stderr.contains("weights install"), "\(result.stderr)")
        #expect(result.stderr.contains(home.path + "/.local/share/posekit/weights"))
    }

    /// `weights install` refuses a source file that is not the published one (its SHA-256), in one
    /// line naming it, and installs nothing in its place.
    @Test func installRefusesAFileThatIsNotThePublishedOne() throws {
        let dir = try CLI.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let published = CLI.shared.appendingPathComponent("weights")
        let source = dir.appendingPathComponent("weights")
        let fm = FileManager.default
        for folder in try fm.contentsOfDirectory(atPath: published.path) {
            try fm.createDirectory(at: source.appendingPathComponent(folder), withIntermediateDirectories: true)
            for file in try fm.contentsOfDirectory(atPath: published.appendingPathComponent(folder).path) {
                try fm.createSymbolicLink(at: source.appendingPathComponent(folder).appendingPathComponent(file),
                                          withDestinationURL: published.appendingPathComponent(folder).appendingPathComponent(file))
            }
        }
        // The lite palm detector replaced by the full one: a valid model, but not the file named.
        let lite = source.appendingPathComponent("mediapipe-0.10.14/palm_detection_lite.tflite")
        try fm.removeItem(at: lite)
        try fm.copyItem(at: published.appendingPathComponent("mediapipe-0.10.14/palm_detection_full.tflite"), to: lite)
        let home = dir.appendingPathComponent("home")
        let result = try CLI.run(["weights", "install", "--from", source.path], environment: Self.isolated(home: home))
        expectOneLineError(result, "\(lite.path): SHA-256 1b14e942")
        #expect(result.stderr.contains("refusing to install it as palm_detection_lite"), "\(result.stderr)")
        #expect(!fm.fileExists(atPath: home.appendingPathComponent(".local/share/posekit/weights/palm_detection_lite.pkw").path))
    }

    @Test func bundlesOfTheWrongKindAreRefusedByName() throws {
        let image = CLI.shared.appendingPathComponent("media/images/coco_000000000785.ppm").path
        expectOneLineError(try CLI.run(["pose", "--model", "actionnet", image]), "holds actionnet weights, not posenet weights")
        let frame = #"{"frame": 0, "time": 0, "width": 64, "height": 48, "poses": []}"#
        expectOneLineError(try CLI.run(["actions", "--weights", "mobilenet050", "--poses", "-"], stdin: Data(frame.utf8)),
                           "holds posenet weights, not actionnet weights")
    }

    @Test func corruptAndTruncatedBundlesAreRefusedInOneLine() throws {
        let good = try Data(contentsOf: CLI.repositoryRoot.appendingPathComponent("Weights/actionnet.pkw"))
        let dir = try CLI.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        var flipped = good
        flipped[good.count / 2] ^= 0x01
        let corrupt = dir.appendingPathComponent("corrupt.pkw"), short = dir.appendingPathComponent("short.pkw")
        try flipped.write(to: corrupt)
        try good.prefix(good.count - 1000).write(to: short)
        expectOneLineError(try CLI.run(["info", corrupt.path]), "checksum mismatch")
        expectOneLineError(try CLI.run(["info", short.path]), "truncated")
        let frame = #"{"frame": 0, "time": 0, "width": 64, "height": 48, "poses": []}"#
        expectOneLineError(try CLI.run(["actions", "--weights", corrupt.path, "--poses", "-"], stdin: Data(frame.utf8)), "checksum mismatch")
    }

    /// `info` describes the ActionNet bundle and still the PoseNet ones.
    @Test func infoDescribesBothKinds() throws {
        let action = try CLI.run(["info", "actionnet"])
        #expect(action.status == 0, "\(action.stderr)")
        #expect(action.stdoutText.contains("network       actionnet") && action.stdoutText.contains("125893 parameters"), "\(action.stdoutText)")
        let pose = try CLI.run(["info", "mobilenet075"])
        #expect(pose.status == 0 && pose.stdoutText.contains("family        posenet-mobilenet-v1, width multiplier 0.75"), "\(pose.stdoutText)")
    }

    /// A `PKACTN01` file, written here by hand from its documented layout (an encoder independent of
    /// PoseKit's), loads as is and converts with `posekit import`; both give the same `actions` output.
    @Test func legacyActionWeightsLoadAndConvert() throws {
        let architecture = #"{"channels1":2,"channels2":3,"classes":5,"inputChannels":51,"kernel":3,"windowLength":60}"#
        let layerSizes: [Int] = [3 * 51 * 2 + 2, 3 * 2 * 2 + 2, 3 * 2 * 2 + 2, 3 * 2 * 3 + 3, 3 * 3 * 3 + 3, 3 * 3 * 3 + 3, 3 * 5 + 5]
        let count = layerSizes.reduce(0, +)
        let header = #"{"architecture":\#(architecture),"classes":["jumping_jacks","lunges","burpees","squats","other"],"fps":30,"parameters":\#(count),"training":{"seed":"7"},"window_stride":10}"#
        var bytes = Array("PKACTN01".utf8)
        withUnsafeBytes(of: UInt32(header.utf8.count).littleEndian) { bytes += $0 }
        bytes += Array(header.utf8)
        while bytes.count % 4 != 0 { bytes.append(0) }
        for i in 0..<count {
            let value: Float = Float((i * 7919) % 201 - 100) / 400   // deterministic, in [-0.25, 0.25]
            withUnsafeBytes(of: value.bitPattern.littleEndian) { bytes += $0 }
        }
        let dir = try CLI.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let legacy = dir.appendingPathComponent("old.pkw"), converted = dir.appendingPathComponent("new.pkw")
        try Data(bytes).write(to: legacy)
        expectOneLineError(try CLI.run(["info", legacy.path]), "not a PoseKit weight bundle")
        let conversion = try CLI.run(["import", legacy.path, "-o", converted.path])
        #expect(conversion.status == 0, "\(conversion.stderr)")
        let info = try CLI.run(["info", converted.path])
        #expect(info.status == 0 && info.stdoutText.contains("\(count) parameters") && info.stdoutText.contains("source seed: 7"), "\(info.stdoutText)")

        // A person squatting slowly (hips and knees move), so the windows differ.
        var frames: [String] = []
        for f in 0..<90 {
            let dip = 40 * sin(Double(f) / 10)
            let keypoints: [String] = (0..<17).map { (k: Int) -> String in
                let names = ["nose", "leftEye", "rightEye", "leftEar", "rightEar", "leftShoulder", "rightShoulder", "leftElbow",
                             "rightElbow", "leftWrist", "rightWrist", "leftHip", "rightHip", "leftKnee", "rightKnee", "leftAnkle", "rightAnkle"]
                let lift: Double = k >= 11 && k < 15 ? dip : 0
                let y: Double = 100 + Double(k) * 20 + lift
                return #"{"part": "\#(names[k])", "x": \#(300 + (k % 2 == 0 ? 30 : -30)), "y": \#(y), "score": 0.9}"#
            }
            frames.append(#"{"frame": \#(f), "time": \#(Double(f) / 30), "width": 640, "height": 480, "poses": [{"score": 0.9, "keypoints": [\#(keypoints.joined(separator: ", "))]}]}"#)
        }
        let poses = Data((frames.joined(separator: "\n") + "\n").utf8)
        let old = try CLI.run(["actions", "--weights", legacy.path, "--poses", "-"], stdin: poses)
        let new = try CLI.run(["actions", "--weights", converted.path, "--poses", "-"], stdin: poses)
        #expect(old.status == 0 && new.status == 0, "\(old.stderr) \(new.stderr)")
        #expect(old.lines.count > 3)
        #expect(old.stdout == new.stdout)
    }
}
